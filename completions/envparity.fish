# fish completion for envparity (installed as
# share/fish/vendor_completions.d/envparity.fish).  Commands, each
# command's options, files where an option takes one, the values of the
# options that take a fixed set, and the profiles of a local store after
# --profile.  Kept in step with `envparity --help` and each command's
# option table (`envparity __options COMMAND`, what `envparity COMMAND
# --help` is rendered from) by tests/cli/manpage.bats, as the bash and
# zsh completions are.

# Whether the command line's command (its second word) is $argv[1].
function __envparity_cmd
    set -l words (commandline -opc)
    test (count $words) -ge 2; and test "$words[2]" = "$argv[1]"
end

# Whether no command has been typed yet.
function __envparity_no_cmd
    test (count (commandline -opc)) -eq 1
end

# The profiles of the store the command line names (--store, else
# $ENVPARITY_STORE, else .envparity/store) and its --ref, as `envparity
# profiles` lists them: of a local store only (a remote one would be
# fetched at each TAB, from a host that may not answer), and in at most
# 2 seconds.
function __envparity_profiles
    set -l words (commandline -opc)
    set -l store $ENVPARITY_STORE
    set -l ref
    set -l n (count $words)
    for i in (seq 2 $n)
        set -l next (math $i + 1)
        switch $words[$i]
            case --store
                test $next -le $n; and set store $words[$next]
            case '--store=*'
                set store (string replace -- --store= '' $words[$i])
            case --ref
                test $next -le $n; and set ref $words[$next]
            case '--ref=*'
                set ref (string replace -- --ref= '' $words[$i])
        end
    end
    string match -q -- '*://*' "$store"; and return
    string match -qr -- '^[^/]*:' "$store"; and return
    set store (string replace -r -- '^~/' "$HOME/" "$store")
    set -l args profiles
    test -n "$store"; and set -a args --store $store
    test -n "$ref"; and set -a args --ref $ref
    command -q timeout; or return
    timeout 2 $words[1] $args 2>/dev/null </dev/null
end

complete -c envparity -f
complete -c envparity -n __envparity_no_cmd -l help -s h -d 'show the commands'
complete -c envparity -n __envparity_no_cmd -l version -s V -d 'print the version'

complete -c envparity -n __envparity_no_cmd -a capture -d 'print or write a manifest of this machine\'s stack'
complete -c envparity -n __envparity_no_cmd -a check -d 'compare this machine with the golden manifest'
complete -c envparity -n __envparity_no_cmd -a bless -d 'make a manifest the golden one for a profile'
complete -c envparity -n __envparity_no_cmd -a diff -d 'compare two manifests'
complete -c envparity -n __envparity_no_cmd -a log -d 'list the history of a profile\'s golden and policy'
complete -c envparity -n __envparity_no_cmd -a profiles -d 'list the profiles a store holds'
complete -c envparity -n __envparity_no_cmd -a waive -d 'accept a finding until a date'
complete -c envparity -n __envparity_no_cmd -a unwaive -d 'remove a waiver from the policy'
complete -c envparity -n __envparity_no_cmd -a policy -d 'show a profile\'s effective policy'
complete -c envparity -n __envparity_no_cmd -a fleet -d 'compare many nodes\' manifests'
complete -c envparity -n __envparity_no_cmd -a probe -d 'run the reference workload N times and compare the runs'
complete -c envparity -n __envparity_no_cmd -a digest -d 'resolve container image references to digests'
complete -c envparity -n __envparity_no_cmd -a attest -d 'sign a statement check or fleet wrote'
complete -c envparity -n __envparity_no_cmd -a verify -d 'check a signed attestation before a deploy'
complete -c envparity -n __envparity_no_cmd -a version -d 'print the envparity version and its libraries'
complete -c envparity -n __envparity_no_cmd -a help -d 'show a command\'s options'
complete -c envparity -n "__envparity_cmd help" -a 'capture check bless diff log profiles waive unwaive policy fleet probe digest attest verify version'

# capture
complete -c envparity -n "__envparity_cmd capture" -l output -s o -r -F -d 'write the manifest to FILE'
complete -c envparity -n "__envparity_cmd capture" -l quiet -s q -d 'do not repeat warnings on standard error'
complete -c envparity -n "__envparity_cmd capture" -l sign-key -r -F -d 'sign the manifest with this node\'s own Ed25519'
complete -c envparity -n "__envparity_cmd capture" -l sign-key-fd -x -d 'read the node\'s key from descriptor N'
complete -c envparity -n "__envparity_cmd capture" -l progress -d 'show progress on standard error'
complete -c envparity -n "__envparity_cmd capture" -l no-progress -d 'never show progress'
complete -c envparity -n "__envparity_cmd capture" -l help -s h -d 'show this help'
complete -c envparity -n "__envparity_cmd capture" -l python -r -F -d 'the interpreter whose packages to list'
complete -c envparity -n "__envparity_cmd capture" -l site-packages -r -F -d 'list the distributions in DIR instead'
complete -c envparity -n "__envparity_cmd capture" -l conda-prefix -r -F -d 'a conda environment'
complete -c envparity -n "__envparity_cmd capture" -l lockfile -r -F -d 'hash and read the pins of PATH'
complete -c envparity -n "__envparity_cmd capture" -l no-discover -d 'do not pick up lockfiles in the current directory'
complete -c envparity -n "__envparity_cmd capture" -l lock-group -x -a all -d 'judge against the pins of category, group or pixi environment NAME'
complete -c envparity -n "__envparity_cmd capture" -l env -x -d 'also record environment variable NAME, or PREFIX*'
complete -c envparity -n "__envparity_cmd capture" -l env-not-secret -x -d 'NAME only looks like a credential\'s name'
complete -c envparity -n "__envparity_cmd capture" -l file-sha256 -r -F -d 'record the SHA-256 of the file at PATH'
complete -c envparity -n "__envparity_cmd capture" -l file-line -r -F -d 'record the first line of the file at PATH'
complete -c envparity -n "__envparity_cmd capture" -l lib-path -r -F -d 'look for CUDA libraries in DIR first'
complete -c envparity -n "__envparity_cmd capture" -l no-cache -d 'hash every file again'
complete -c envparity -n "__envparity_cmd capture" -l image -x -d 'record the digests REF resolves to'
complete -c envparity -n "__envparity_cmd capture" -l node -x -d 'the node name meta.node records'
complete -c envparity -n "__envparity_cmd capture" -l artifact -r -F -d 'record the SHA-256 of a model file or directory'
complete -c envparity -n "__envparity_cmd capture" -l serving -r -F -d 'record every field of a serving configuration as'
complete -c envparity -n "__envparity_cmd capture" -l platform -x -a 'linux/amd64 linux/arm64 linux/arm64/v8 linux/ppc64le linux/s390x' -d 'the platform to pick from an index'
complete -c envparity -n "__envparity_cmd capture" -l registry-ca -r -F -d 'trust this CA bundle for registries\' TLS'
complete -c envparity -n "__envparity_cmd capture" -l insecure-registry -x -d 'plain http for this registry only'
complete -c envparity -n "__envparity_cmd capture" -l registry-auth-file -r -F -d 'credentials'
complete -c envparity -n "__envparity_cmd capture" -l registry-auth-realm -x -d 'a token server on another host'
complete -c envparity -n "__envparity_cmd capture" -l registry-timeout -x -d 'each request\'s limit'
complete -c envparity -n "__envparity_cmd capture" -l runs -x -d 'run the probe N times per backend'
complete -c envparity -n "__envparity_cmd capture" -l backend -x -a 'cpu cuda cublas cudnn all' -d 'cpu'
complete -c envparity -n "__envparity_cmd capture" -l timeout -x -d 'kill a run after S seconds'
complete -c envparity -n "__envparity_cmd capture" -l require-gpu -d 'a GPU backend that cannot run fails'
complete -c envparity -n "__envparity_cmd capture" -l probe -r -F -d 'the probe binary'
complete -c envparity -n "__envparity_cmd capture" -l workload -x -d 'also run the team\'s own reference run'
complete -c envparity -n "__envparity_cmd capture" -l gpus -x -d 'the GPUs the GPU backends run on'
complete -c envparity -n "__envparity_cmd capture" -l jobs -x -d 'at most N probe processes at once'

# check
complete -c envparity -n "__envparity_cmd check" -l output -s o -r -F -d 'keep the manifest that was checked'
complete -c envparity -n "__envparity_cmd check" -l quiet -s q -d 'print only the verdict line and the counts'
complete -c envparity -n "__envparity_cmd check" -l expiry-warning -x -d 'warn of a waiver that expires within DAYS days'
complete -c envparity -n "__envparity_cmd check" -l progress -d 'show progress on standard error'
complete -c envparity -n "__envparity_cmd check" -l no-progress -d 'never show progress'
complete -c envparity -n "__envparity_cmd check" -l help -s h -d 'show this help'
complete -c envparity -n "__envparity_cmd check" -l attest -r -F -d 'write a signed attestation of the verdict'
complete -c envparity -n "__envparity_cmd check" -l statement -r -F -d 'write the same statement unsigned'
complete -c envparity -n "__envparity_cmd check" -l sign-key -r -F -d 'the Ed25519 private key'
complete -c envparity -n "__envparity_cmd check" -l sign-key-fd -x -d 'read the key from descriptor N'
complete -c envparity -n "__envparity_cmd check" -l runs -x -d 'run the probe N times per backend'
complete -c envparity -n "__envparity_cmd check" -l backend -x -a 'cpu cuda cublas cudnn all' -d 'cpu'
complete -c envparity -n "__envparity_cmd check" -l timeout -x -d 'kill a run after S seconds'
complete -c envparity -n "__envparity_cmd check" -l require-gpu -d 'a GPU backend that cannot run fails'
complete -c envparity -n "__envparity_cmd check" -l probe -r -F -d 'the probe binary'
complete -c envparity -n "__envparity_cmd check" -l workload -x -d 'also run the team\'s own reference run'
complete -c envparity -n "__envparity_cmd check" -l gpus -x -d 'the GPUs the GPU backends run on'
complete -c envparity -n "__envparity_cmd check" -l jobs -x -d 'at most N probe processes at once'
complete -c envparity -n "__envparity_cmd check" -l store -r -F -d 'the golden store'
complete -c envparity -n "__envparity_cmd check" -l ref -x -d 'the store\'s branch'
complete -c envparity -n "__envparity_cmd check" -l profile -x -a '(__envparity_profiles)' -d 'the profile'
complete -c envparity -n "__envparity_cmd check" -l json -r -F -d 'the JSON report'
complete -c envparity -n "__envparity_cmd check" -l junit -r -F -d 'JUnit XML for CI test views'
complete -c envparity -n "__envparity_cmd check" -l markdown -r -F -d 'a Markdown summary for job pages and comments'
complete -c envparity -n "__envparity_cmd check" -l prom -r -F -d 'Prometheus metrics'
complete -c envparity -n "__envparity_cmd check" -l color -x -a 'auto always never' -d 'paint the summary\'s verdicts'
complete -c envparity -n "__envparity_cmd check" -l python -r -F -d 'the interpreter whose packages to list'
complete -c envparity -n "__envparity_cmd check" -l site-packages -r -F -d 'list the distributions in DIR instead'
complete -c envparity -n "__envparity_cmd check" -l conda-prefix -r -F -d 'a conda environment'
complete -c envparity -n "__envparity_cmd check" -l lockfile -r -F -d 'hash and read the pins of PATH'
complete -c envparity -n "__envparity_cmd check" -l no-discover -d 'do not pick up lockfiles in the current directory'
complete -c envparity -n "__envparity_cmd check" -l lock-group -x -a all -d 'judge against the pins of category, group or pixi environment NAME'
complete -c envparity -n "__envparity_cmd check" -l env -x -d 'also record environment variable NAME, or PREFIX*'
complete -c envparity -n "__envparity_cmd check" -l env-not-secret -x -d 'NAME only looks like a credential\'s name'
complete -c envparity -n "__envparity_cmd check" -l file-sha256 -r -F -d 'record the SHA-256 of the file at PATH'
complete -c envparity -n "__envparity_cmd check" -l file-line -r -F -d 'record the first line of the file at PATH'
complete -c envparity -n "__envparity_cmd check" -l lib-path -r -F -d 'look for CUDA libraries in DIR first'
complete -c envparity -n "__envparity_cmd check" -l no-cache -d 'hash every file again'
complete -c envparity -n "__envparity_cmd check" -l image -x -d 'record the digests REF resolves to'
complete -c envparity -n "__envparity_cmd check" -l node -x -d 'the node name meta.node records'
complete -c envparity -n "__envparity_cmd check" -l artifact -r -F -d 'record the SHA-256 of a model file or directory'
complete -c envparity -n "__envparity_cmd check" -l serving -r -F -d 'record every field of a serving configuration as'
complete -c envparity -n "__envparity_cmd check" -l platform -x -a 'linux/amd64 linux/arm64 linux/arm64/v8 linux/ppc64le linux/s390x' -d 'the platform to pick from an index'
complete -c envparity -n "__envparity_cmd check" -l registry-ca -r -F -d 'trust this CA bundle for registries\' TLS'
complete -c envparity -n "__envparity_cmd check" -l insecure-registry -x -d 'plain http for this registry only'
complete -c envparity -n "__envparity_cmd check" -l registry-auth-file -r -F -d 'credentials'
complete -c envparity -n "__envparity_cmd check" -l registry-auth-realm -x -d 'a token server on another host'
complete -c envparity -n "__envparity_cmd check" -l registry-timeout -x -d 'each request\'s limit'

# bless
complete -c envparity -n "__envparity_cmd bless" -l message -s m -x -d 'the commit message'
complete -c envparity -n "__envparity_cmd bless" -l quiet -s q -d 'do not repeat capture warnings on standard error'
complete -c envparity -n "__envparity_cmd bless" -l dry-run -d 'commit nothing'
complete -c envparity -n "__envparity_cmd bless" -l accept-failing -d 'bless a manifest that fails its own checks'
complete -c envparity -n "__envparity_cmd bless" -l progress -d 'show progress on standard error'
complete -c envparity -n "__envparity_cmd bless" -l no-progress -d 'never show progress'
complete -c envparity -n "__envparity_cmd bless" -l help -s h -d 'show this help'
complete -c envparity -n "__envparity_cmd bless" -l store -r -F -d 'the golden store'
complete -c envparity -n "__envparity_cmd bless" -l ref -x -d 'the store\'s branch'
complete -c envparity -n "__envparity_cmd bless" -l profile -x -a '(__envparity_profiles)' -d 'the profile'
complete -c envparity -n "__envparity_cmd bless" -l python -r -F -d 'the interpreter whose packages to list'
complete -c envparity -n "__envparity_cmd bless" -l site-packages -r -F -d 'list the distributions in DIR instead'
complete -c envparity -n "__envparity_cmd bless" -l conda-prefix -r -F -d 'a conda environment'
complete -c envparity -n "__envparity_cmd bless" -l lockfile -r -F -d 'hash and read the pins of PATH'
complete -c envparity -n "__envparity_cmd bless" -l no-discover -d 'do not pick up lockfiles in the current directory'
complete -c envparity -n "__envparity_cmd bless" -l lock-group -x -a all -d 'judge against the pins of category, group or pixi environment NAME'
complete -c envparity -n "__envparity_cmd bless" -l env -x -d 'also record environment variable NAME, or PREFIX*'
complete -c envparity -n "__envparity_cmd bless" -l env-not-secret -x -d 'NAME only looks like a credential\'s name'
complete -c envparity -n "__envparity_cmd bless" -l file-sha256 -r -F -d 'record the SHA-256 of the file at PATH'
complete -c envparity -n "__envparity_cmd bless" -l file-line -r -F -d 'record the first line of the file at PATH'
complete -c envparity -n "__envparity_cmd bless" -l lib-path -r -F -d 'look for CUDA libraries in DIR first'
complete -c envparity -n "__envparity_cmd bless" -l no-cache -d 'hash every file again'
complete -c envparity -n "__envparity_cmd bless" -l image -x -d 'record the digests REF resolves to'
complete -c envparity -n "__envparity_cmd bless" -l node -x -d 'the node name meta.node records'
complete -c envparity -n "__envparity_cmd bless" -l artifact -r -F -d 'record the SHA-256 of a model file or directory'
complete -c envparity -n "__envparity_cmd bless" -l serving -r -F -d 'record every field of a serving configuration as'
complete -c envparity -n "__envparity_cmd bless" -l platform -x -a 'linux/amd64 linux/arm64 linux/arm64/v8 linux/ppc64le linux/s390x' -d 'the platform to pick from an index'
complete -c envparity -n "__envparity_cmd bless" -l registry-ca -r -F -d 'trust this CA bundle for registries\' TLS'
complete -c envparity -n "__envparity_cmd bless" -l insecure-registry -x -d 'plain http for this registry only'
complete -c envparity -n "__envparity_cmd bless" -l registry-auth-file -r -F -d 'credentials'
complete -c envparity -n "__envparity_cmd bless" -l registry-auth-realm -x -d 'a token server on another host'
complete -c envparity -n "__envparity_cmd bless" -l registry-timeout -x -d 'each request\'s limit'
complete -c envparity -n "__envparity_cmd bless" -l runs -x -d 'run the probe N times per backend'
complete -c envparity -n "__envparity_cmd bless" -l backend -x -a 'cpu cuda cublas cudnn all' -d 'cpu'
complete -c envparity -n "__envparity_cmd bless" -l timeout -x -d 'kill a run after S seconds'
complete -c envparity -n "__envparity_cmd bless" -l require-gpu -d 'a GPU backend that cannot run fails'
complete -c envparity -n "__envparity_cmd bless" -l probe -r -F -d 'the probe binary'
complete -c envparity -n "__envparity_cmd bless" -l workload -x -d 'also run the team\'s own reference run'
complete -c envparity -n "__envparity_cmd bless" -l gpus -x -d 'the GPUs the GPU backends run on'
complete -c envparity -n "__envparity_cmd bless" -l jobs -x -d 'at most N probe processes at once'
complete -c envparity -n "__envparity_cmd bless" -F

# diff
complete -c envparity -n "__envparity_cmd diff" -l policy -r -F -d 'compare under this policy'
complete -c envparity -n "__envparity_cmd diff" -l expiry-warning -x -d 'warn of a waiver that expires within DAYS days'
complete -c envparity -n "__envparity_cmd diff" -l quiet -s q -d 'print only the verdict line and the counts'
complete -c envparity -n "__envparity_cmd diff" -l help -s h -d 'show this help'
complete -c envparity -n "__envparity_cmd diff" -l json -r -F -d 'the JSON report'
complete -c envparity -n "__envparity_cmd diff" -l junit -r -F -d 'JUnit XML for CI test views'
complete -c envparity -n "__envparity_cmd diff" -l markdown -r -F -d 'a Markdown summary for job pages and comments'
complete -c envparity -n "__envparity_cmd diff" -l prom -r -F -d 'Prometheus metrics'
complete -c envparity -n "__envparity_cmd diff" -l color -x -a 'auto always never' -d 'paint the summary\'s verdicts'
complete -c envparity -n "__envparity_cmd diff" -F

# log
complete -c envparity -n "__envparity_cmd log" -l verbose -s v -d 'also list the keys'
complete -c envparity -n "__envparity_cmd log" -l max -s n -x -d 'at most N commits'
complete -c envparity -n "__envparity_cmd log" -l json -d 'print it as JSON'
complete -c envparity -n "__envparity_cmd log" -l help -s h -d 'show this help'
complete -c envparity -n "__envparity_cmd log" -l store -r -F -d 'the golden store'
complete -c envparity -n "__envparity_cmd log" -l ref -x -d 'the store\'s branch'
complete -c envparity -n "__envparity_cmd log" -l profile -x -a '(__envparity_profiles)' -d 'the profile'

# profiles
complete -c envparity -n "__envparity_cmd profiles" -l json -d 'print them as JSON'
complete -c envparity -n "__envparity_cmd profiles" -l help -s h -d 'show this help'
complete -c envparity -n "__envparity_cmd profiles" -l store -r -F -d 'the golden store'
complete -c envparity -n "__envparity_cmd profiles" -l ref -x -d 'the store\'s branch'

# waive
complete -c envparity -n "__envparity_cmd waive" -l reason -x -d 'why the drift is accepted'
complete -c envparity -n "__envparity_cmd waive" -l owner -x -d 'who answers for it'
complete -c envparity -n "__envparity_cmd waive" -l expires -x -d 'the last day it holds'
complete -c envparity -n "__envparity_cmd waive" -l actual -x -d 'waive only this value of KEY'
complete -c envparity -n "__envparity_cmd waive" -l shared -d 'the store root\'s policy.json'
complete -c envparity -n "__envparity_cmd waive" -l message -s m -x -d 'the commit message'
complete -c envparity -n "__envparity_cmd waive" -l quiet -s q -d 'print nothing when it succeeds'
complete -c envparity -n "__envparity_cmd waive" -l help -s h -d 'show this help'
complete -c envparity -n "__envparity_cmd waive" -l store -r -F -d 'the golden store'
complete -c envparity -n "__envparity_cmd waive" -l ref -x -d 'the store\'s branch'
complete -c envparity -n "__envparity_cmd waive" -l profile -x -a '(__envparity_profiles)' -d 'the profile'

# unwaive
complete -c envparity -n "__envparity_cmd unwaive" -l shared -d 'the store root\'s policy.json'
complete -c envparity -n "__envparity_cmd unwaive" -l message -s m -x -d 'the commit message'
complete -c envparity -n "__envparity_cmd unwaive" -l quiet -s q -d 'print nothing when it succeeds'
complete -c envparity -n "__envparity_cmd unwaive" -l help -s h -d 'show this help'
complete -c envparity -n "__envparity_cmd unwaive" -l store -r -F -d 'the golden store'
complete -c envparity -n "__envparity_cmd unwaive" -l ref -x -d 'the store\'s branch'
complete -c envparity -n "__envparity_cmd unwaive" -l profile -x -a '(__envparity_profiles)' -d 'the profile'

# policy
complete -c envparity -n "__envparity_cmd policy" -l json -d 'print it as JSON'
complete -c envparity -n "__envparity_cmd policy" -a 'add remove' -d 'add or remove a rule'
complete -c envparity -n "__envparity_cmd policy" -l missing -x -a 'fail skip ignore' -d 'add: what a key only one side has does'
complete -c envparity -n "__envparity_cmd policy" -l severity -x -a 'fail warn' -d 'add: whether the rule\'s drift fails or warns'
complete -c envparity -n "__envparity_cmd policy" -l reason -x -d 'add: why the rule is there'
complete -c envparity -n "__envparity_cmd policy" -l shared -d 'add, remove: the store root\'s policy.json'
complete -c envparity -n "__envparity_cmd policy" -l message -s m -x -d 'add, remove: the commit message'
complete -c envparity -n "__envparity_cmd policy" -l quiet -s q -d 'add, remove: print nothing when it succeeds'
complete -c envparity -n "__envparity_cmd policy" -l help -s h -d 'show this help'
complete -c envparity -n "__envparity_cmd policy" -l store -r -F -d 'the golden store'
complete -c envparity -n "__envparity_cmd policy" -l ref -x -d 'the store\'s branch'
complete -c envparity -n "__envparity_cmd policy" -l profile -x -a '(__envparity_profiles)' -d 'the profile'

# fleet
complete -c envparity -n "__envparity_cmd fleet" -l expect -x -d 'the nodes that must report'
complete -c envparity -n "__envparity_cmd fleet" -l expect-from-slurm -d 'the nodes of this Slurm job'
complete -c envparity -n "__envparity_cmd fleet" -l bind-filenames -d 'each file NODE.json is node NODE\'s'
complete -c envparity -n "__envparity_cmd fleet" -l node-keys -r -F -d 'each file NODE.json must be NODE\'s manifest signed'
complete -c envparity -n "__envparity_cmd fleet" -l max-age -x -d 'a manifest captured longer ago'
complete -c envparity -n "__envparity_cmd fleet" -l policy -r -F -d 'the policy to judge by when no store is named'
complete -c envparity -n "__envparity_cmd fleet" -l expiry-warning -x -d 'warn of a waiver that expires within DAYS days'
complete -c envparity -n "__envparity_cmd fleet" -l quiet -s q -d 'print only the verdict line and the counts'
complete -c envparity -n "__envparity_cmd fleet" -l progress -d 'show progress on standard error'
complete -c envparity -n "__envparity_cmd fleet" -l no-progress -d 'never show progress'
complete -c envparity -n "__envparity_cmd fleet" -l help -s h -d 'show this help'
complete -c envparity -n "__envparity_cmd fleet" -l store -r -F -d 'the golden store'
complete -c envparity -n "__envparity_cmd fleet" -l ref -x -d 'the store\'s branch'
complete -c envparity -n "__envparity_cmd fleet" -l profile -x -a '(__envparity_profiles)' -d 'the profile'
complete -c envparity -n "__envparity_cmd fleet" -l json -r -F -d 'the JSON report'
complete -c envparity -n "__envparity_cmd fleet" -l junit -r -F -d 'JUnit XML for CI test views'
complete -c envparity -n "__envparity_cmd fleet" -l markdown -r -F -d 'a Markdown summary for job pages and comments'
complete -c envparity -n "__envparity_cmd fleet" -l prom -r -F -d 'Prometheus metrics'
complete -c envparity -n "__envparity_cmd fleet" -l color -x -a 'auto always never' -d 'paint the summary\'s verdicts'
complete -c envparity -n "__envparity_cmd fleet" -l attest -r -F -d 'write a signed attestation of the verdict'
complete -c envparity -n "__envparity_cmd fleet" -l statement -r -F -d 'write the same statement unsigned'
complete -c envparity -n "__envparity_cmd fleet" -l sign-key -r -F -d 'the Ed25519 private key'
complete -c envparity -n "__envparity_cmd fleet" -l sign-key-fd -x -d 'read the key from descriptor N'
complete -c envparity -n "__envparity_cmd fleet" -F

# probe
complete -c envparity -n "__envparity_cmd probe" -l runs -x -d 'runs per backend'
complete -c envparity -n "__envparity_cmd probe" -l backend -x -a 'cpu cuda cublas cudnn all' -d 'cpu'
complete -c envparity -n "__envparity_cmd probe" -l timeout -x -d 'seconds a run may take before it is killed'
complete -c envparity -n "__envparity_cmd probe" -l require-gpu -d 'a GPU backend that cannot run here is a failure'
complete -c envparity -n "__envparity_cmd probe" -l probe -r -F -d 'the probe binary'
complete -c envparity -n "__envparity_cmd probe" -l gpus -x -d 'the GPUs the GPU backends run on'
complete -c envparity -n "__envparity_cmd probe" -l jobs -x -d 'at most N probe processes at once'
complete -c envparity -n "__envparity_cmd probe" -l output -s o -r -F -d 'also write the probe\'s facts as a manifest'
complete -c envparity -n "__envparity_cmd probe" -l quiet -s q -d 'print only the counts line'
complete -c envparity -n "__envparity_cmd probe" -l progress -d 'show progress on standard error'
complete -c envparity -n "__envparity_cmd probe" -l no-progress -d 'never show progress'
complete -c envparity -n "__envparity_cmd probe" -l help -s h -d 'show this help'
complete -c envparity -n "__envparity_cmd probe" -l json -r -F -d 'the JSON report'
complete -c envparity -n "__envparity_cmd probe" -l junit -r -F -d 'JUnit XML for CI test views'
complete -c envparity -n "__envparity_cmd probe" -l markdown -r -F -d 'a Markdown summary for job pages and comments'
complete -c envparity -n "__envparity_cmd probe" -l prom -r -F -d 'Prometheus metrics'
complete -c envparity -n "__envparity_cmd probe" -l color -x -a 'auto always never' -d 'paint the summary\'s verdicts'
complete -c envparity -n "__envparity_cmd probe" -l python -r -F -d 'the interpreter whose packages to list'
complete -c envparity -n "__envparity_cmd probe" -l site-packages -r -F -d 'list the distributions in DIR instead'
complete -c envparity -n "__envparity_cmd probe" -l conda-prefix -r -F -d 'a conda environment'
complete -c envparity -n "__envparity_cmd probe" -l lockfile -r -F -d 'hash and read the pins of PATH'
complete -c envparity -n "__envparity_cmd probe" -l no-discover -d 'do not pick up lockfiles in the current directory'
complete -c envparity -n "__envparity_cmd probe" -l lock-group -x -a all -d 'judge against the pins of category, group or pixi environment NAME'
complete -c envparity -n "__envparity_cmd probe" -l env -x -d 'also record environment variable NAME, or PREFIX*'
complete -c envparity -n "__envparity_cmd probe" -l env-not-secret -x -d 'NAME only looks like a credential\'s name'
complete -c envparity -n "__envparity_cmd probe" -l file-sha256 -r -F -d 'record the SHA-256 of the file at PATH'
complete -c envparity -n "__envparity_cmd probe" -l file-line -r -F -d 'record the first line of the file at PATH'
complete -c envparity -n "__envparity_cmd probe" -l lib-path -r -F -d 'look for CUDA libraries in DIR first'
complete -c envparity -n "__envparity_cmd probe" -l no-cache -d 'hash every file again'
complete -c envparity -n "__envparity_cmd probe" -l image -x -d 'record the digests REF resolves to'
complete -c envparity -n "__envparity_cmd probe" -l node -x -d 'the node name meta.node records'
complete -c envparity -n "__envparity_cmd probe" -l artifact -r -F -d 'record the SHA-256 of a model file or directory'
complete -c envparity -n "__envparity_cmd probe" -l serving -r -F -d 'record every field of a serving configuration as'

# digest
complete -c envparity -n "__envparity_cmd digest" -l json -d 'print one JSON document instead'
complete -c envparity -n "__envparity_cmd digest" -l no-cache -d 'fetch every document again'
complete -c envparity -n "__envparity_cmd digest" -l progress -d 'show progress on standard error'
complete -c envparity -n "__envparity_cmd digest" -l no-progress -d 'never show progress'
complete -c envparity -n "__envparity_cmd digest" -l help -s h -d 'show this help'
complete -c envparity -n "__envparity_cmd digest" -l platform -x -a 'linux/amd64 linux/arm64 linux/arm64/v8 linux/ppc64le linux/s390x' -d 'the platform to pick from an index'
complete -c envparity -n "__envparity_cmd digest" -l registry-ca -r -F -d 'trust this CA bundle for registries\' TLS'
complete -c envparity -n "__envparity_cmd digest" -l insecure-registry -x -d 'plain http for this registry only'
complete -c envparity -n "__envparity_cmd digest" -l registry-auth-file -r -F -d 'credentials'
complete -c envparity -n "__envparity_cmd digest" -l registry-auth-realm -x -d 'a token server on another host'
complete -c envparity -n "__envparity_cmd digest" -l registry-timeout -x -d 'each request\'s limit'

# attest
complete -c envparity -n "__envparity_cmd attest" -l output -s o -r -F -d 'write the envelope there'
complete -c envparity -n "__envparity_cmd attest" -l sign-key -r -F -d 'the Ed25519 private key'
complete -c envparity -n "__envparity_cmd attest" -l sign-key-fd -x -d 'read the key from descriptor N'
complete -c envparity -n "__envparity_cmd attest" -l help -s h -d 'show this help'
complete -c envparity -n "__envparity_cmd attest" -F

# verify
complete -c envparity -n "__envparity_cmd verify" -l key -r -F -d 'an Ed25519 public key'
complete -c envparity -n "__envparity_cmd verify" -l require -x -a 'no-fail parity' -d 'PASSED or WARNED'
complete -c envparity -n "__envparity_cmd verify" -l max-age -x -d 'made at most this long ago'
complete -c envparity -n "__envparity_cmd verify" -l subject -x -d 'a subject must have this digest'
complete -c envparity -n "__envparity_cmd verify" -l image -x -d 'the image must be one the check recorded'
complete -c envparity -n "__envparity_cmd verify" -l profile -x -a '(__envparity_profiles)' -d 'the golden\'s profile must be P'
complete -c envparity -n "__envparity_cmd verify" -l store -x -d 'the golden must come from STORE'
complete -c envparity -n "__envparity_cmd verify" -l golden-commit -x -d 'the golden must be the one at commit SHA'
complete -c envparity -n "__envparity_cmd verify" -l help -s h -d 'show this help'
complete -c envparity -n "__envparity_cmd verify" -F

# version
