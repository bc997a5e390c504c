# bench/odd-nodes.jq: what a user writes without envparity fleet: the
# nodes whose value of some fact is not the fleet's majority value.  Run
# as: jq -n -r -f odd-nodes.jq NODE.json...  (every manifest read once to
# count, the counts kept, then read again to name the odd nodes).
def majority: to_entries | max_by(.value) | .key;
[inputs | {node: .meta.node, facts: .facts}] as $nodes
| (reduce $nodes[] as $n ({}; reduce ($n.facts | to_entries[]) as $e (.;
    .[$e.key][$e.value] += 1)) | map_values(majority)) as $maj
| $nodes[] | select(any(.facts | to_entries[]; $maj[.key] != .value)) | .node
