#!/usr/bin/python3
"""textproto_diff.py DUMP FILE...: hold envparity's protobuf text format
reader (checker/collect/textproto.c) to python3-protobuf's text_format.
textproto_diff.py DUMP --schema PROTO MESSAGE FILE...: the same with
the real schema, compiled by protoc (Triton's model_config.proto and
inference.ModelConfig): text_format must read each file, and what it
reads, field by field with the schema's types, maps and proto3
defaults, must be what envparity read.

DUMP is build/fuzz/fuzz_textproto; `DUMP --dump FILE...` prints one JSON
line per file: the tree envparity read, or that it refused the file.

text_format needs a schema; these files come without one (Triton's and TF
Serving's .proto files import half of TensorFlow).  So the schema is
inferred from the file itself, with protobuf's own Tokenizer: every field
repeated (so that both ways of repeating, and lists, are the parser's
business), a field whose values are messages a message type of its own,
strings bytes, integers int64 (uint64 past it), numbers with a float
among them double, identifiers an enum of those identifiers.  Then
text_format.Parse, the real parser, reads the file into a message of
that schema, and the message's fields, grouped by name in the order
written, must be the tree envparity read: same names, same nesting, same
string bytes, same integers, same floats.  A file that either side
refuses must be refused by both.  A file whose field takes values of two
kinds (a string here, a number there) has no schema to infer and is
counted apart.  Prints one line per file that disagrees and a summary;
exit 1 if any does.
"""
import json
import math
import os
import re
import struct
import subprocess
import sys
import tempfile

from google.protobuf import descriptor_pb2, descriptor_pool, text_format
from google.protobuf import message_factory
from google.protobuf.descriptor import FieldDescriptor as FD

# Where python3-protobuf's text_format (the pure-Python parser, 3.21)
# departs from the specification and from protobuf's C++ parser, which
# envparity follows: these files must be read differently, and are
# counted apart.
KNOWN = {
    "bad_escape.txt": "an unknown escape (\\q): the specification and "
                      "C++ refuse it, text_format keeps it",
    "escape_question.txt": "\\? is an escape of the specification; "
                           "text_format keeps the backslash",
    "escape_unicode.txt": "\\u and \\U are UTF-8 in the specification; "
                          "text_format writes \\u00e9 as one Latin-1 byte "
                          "and does not know \\U",
    "float_suffix_upper.txt": "the specification and C++ take 'F' after a "
                              "float as 'f'; text_format only 'f'",
    "minus_apart.txt": "'-' is a token of its own in the specification "
                       "('- 2', a comment between); text_format wants "
                       "'-2'",
}

IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
FLOATWORDS = {"inf", "infinity", "nan", "-inf", "-infinity", "-nan"}


class Uninferable(Exception):
    pass


def infer(text):
    """{path: {name: kinds}} from the file's tokens; raises ParseError
    (the tokenizer's own) or Uninferable."""
    tok = text_format.Tokenizer(text.split("\n"))
    schema = {(): {}}

    def scalar(path, name):
        kinds = schema[path].setdefault(name, set())
        t = tok.token
        if t[:1] in ("'", '"'):
            tok.ConsumeByteString()
            while tok.token[:1] in ("'", '"'):
                tok.ConsumeByteString()
            kinds.add("str")
            return
        neg = ""
        if t == "-":
            tok.NextToken()
            neg, t = "-", tok.token
        if IDENT.match(t):
            word = (neg + t).lower()
            kinds.add("float" if word in FLOATWORDS else ("ident", t))
            tok.NextToken()
            return
        try:
            v = int(neg + t, 0) if not re.match(r"^-?0[0-7]+$", neg + t) \
                else int(neg + t, 8)
            kinds.add("bigint" if v > 2**64 - 1 or v < -2**63 else
                      "uint" if v > 2**63 - 1 else "int")
            if re.match(r"^-?0[0-9xX]", t) and t != "0":
                kinds.add("octhex")
        except ValueError:
            kinds.add("float")
        tok.NextToken()

    def message(path, name):
        schema[path].setdefault(name, set()).add("msg")
        sub = path + (name,)
        schema.setdefault(sub, {})
        close = "}" if tok.TryConsume("{") else (tok.Consume("<") or ">")
        fields(sub, close)

    def fields(path, close):
        while True:
            if close is None and tok.AtEnd():
                return
            if close is not None and tok.TryConsume(close):
                return
            name = tok.ConsumeIdentifier()
            colon = tok.TryConsume(":")
            if tok.LookingAt("{") or tok.LookingAt("<"):
                message(path, name)
            elif tok.TryConsume("["):
                if tok.LookingAt("]"):
                    # Empty: a field of some type, no value written.
                    schema[path].setdefault(name, set()).add(
                        "int" if colon else "msg")
                    if not colon:
                        schema.setdefault(path + (name,), {})
                while not tok.TryConsume("]"):
                    if tok.LookingAt("{") or tok.LookingAt("<"):
                        message(path, name)
                    else:
                        scalar(path, name)
                    if not tok.LookingAt("]"):
                        tok.Consume(",")
            else:
                scalar(path, name)
            if not tok.TryConsume(","):
                tok.TryConsume(";")

    fields((), None)
    return schema


def build(schema):
    """A message class for the inferred schema."""
    f = descriptor_pb2.FileDescriptorProto(name="inferred.proto",
                                           package="tp", syntax="proto2")
    names = {path: "M%d" % i for i, path in enumerate(sorted(schema))}
    nenum = 0
    for path, flds in sorted(schema.items()):
        m = f.message_type.add(name=names[path])
        for number, (name, kinds) in enumerate(sorted(flds.items()), 1):
            fd = m.field.add(name=name, number=number,
                             label=FD.LABEL_REPEATED)
            idents = {k[1] for k in kinds if isinstance(k, tuple)}
            plain = {k for k in kinds if not isinstance(k, tuple)}
            # A float field takes a decimal integer of any size, and no
            # hex or octal one; envparity, without the schema, reads
            # every integer alike (64 bits, any base): such a field has
            # no schema to infer.
            if "float" in plain and plain & {"octhex", "bigint"}:
                raise Uninferable("field %s: floats beside hex, octal or "
                                  "huge integers" % name)
            plain -= {"octhex"}
            if "bigint" in plain:
                plain = (plain - {"bigint"}) | {"int"}
            if plain == {"msg"}:
                fd.type = FD.TYPE_MESSAGE
                fd.type_name = ".tp." + names[path + (name,)]
            elif "msg" in plain or ("str" in plain and len(kinds) > 1) \
                    or (idents and plain):
                raise Uninferable("field %s: values of several kinds" % name)
            elif plain == {"str"}:
                fd.type = FD.TYPE_BYTES
            elif "float" in plain:
                fd.type = FD.TYPE_DOUBLE
            elif plain == {"uint"} or (plain == {"int", "uint"}):
                fd.type = FD.TYPE_UINT64 if plain == {"uint"} else \
                    FD.TYPE_DOUBLE
            elif plain == {"int"}:
                fd.type = FD.TYPE_INT64
            else:
                holder = f.message_type.add(name="E%d" % nenum)
                nenum += 1
                e = holder.enum_type.add(name="E")
                for i, v in enumerate(sorted(idents)):
                    e.value.add(name=v, number=i)
                fd.type = FD.TYPE_ENUM
                fd.type_name = ".tp.%s.E" % holder.name
    pool = descriptor_pool.DescriptorPool()
    pool.Add(f)
    desc = pool.FindMessageTypeByName("tp." + names[()])
    return message_factory.MessageFactory(pool).GetPrototype(desc)


def from_protobuf(msg):
    """{name: [values]}; a value is ('msg', {...}) or (kind, python)."""
    out = {}
    for fd, values in msg.ListFields():
        vals = []
        for v in values:
            if fd.type == FD.TYPE_MESSAGE:
                vals.append(("msg", from_protobuf(v)))
            elif fd.type == FD.TYPE_BYTES:
                vals.append(("str", bytes(v)))
            elif fd.type == FD.TYPE_ENUM:
                vals.append(("ident", fd.enum_type.values_by_number[v].name))
            elif fd.type == FD.TYPE_DOUBLE:
                vals.append(("num", float(v)))
            else:
                vals.append(("num", int(v)))
        out[fd.name] = vals
    return out


def to_number(kind, text):
    if kind == "int":
        return int(text)
    t = text.lower()
    if t.lstrip("-") in ("inf", "infinity"):
        return -math.inf if t.startswith("-") else math.inf
    if t.lstrip("-") == "nan":
        return math.nan
    return float(t.rstrip("f"))


def from_dump(fields, schema_floats):
    out = {}
    for x in fields:
        if x["kind"] == "msg":
            v = ("msg", from_dump(x["fields"], schema_floats))
        else:
            raw = bytes.fromhex(x["hex"])
            if x["kind"] == "str":
                v = ("str", raw)
            elif x["kind"] == "ident" and raw.decode().lower() not in \
                    FLOATWORDS:
                v = ("ident", raw.decode())
            else:
                v = ("num", to_number(x["kind"], raw.decode()))
        out.setdefault(x["name"], []).append(v)
    return out


def equal(a, b):
    if a.keys() != b.keys():
        return False
    for k in a:
        if len(a[k]) != len(b[k]):
            return False
        for (ka, va), (kb, vb) in zip(a[k], b[k]):
            if ka != kb:
                return False
            if ka == "msg":
                if not equal(va, vb):
                    return False
            elif ka == "num":
                if isinstance(va, float) or isinstance(vb, float):
                    va, vb = float(va), float(vb)
                if not (va == vb or (va != va and vb != vb)):
                    return False
            elif va != vb:
                return False
    return True


def python_reads(raw):
    """(True, tree) or (False, why) or (None, why) when uninferable."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False, "not UTF-8"
    if "\0" in text:
        return False, "a NUL byte"
    try:
        schema = infer(text)
    except text_format.ParseError as e:
        return False, "tokenizer: %s" % e
    except Uninferable as e:
        return None, str(e)
    try:
        cls = build(schema)
    except Uninferable as e:
        return None, str(e)
    except TypeError as e:  # a name protobuf's descriptors refuse
        return None, "schema: %s" % e
    msg = cls()
    try:
        text_format.Parse(text, msg)
    except text_format.ParseError as e:
        return False, str(e)
    return True, from_protobuf(msg)


def schema_class(proto, message):
    """The message class of MESSAGE in PROTO, compiled by protoc."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "set.pb")
        subprocess.run(["protoc", "--proto_path=" + os.path.dirname(proto),
                        "--descriptor_set_out=" + out,
                        os.path.basename(proto)], check=True)
        with open(out, "rb") as fh:
            fds = descriptor_pb2.FileDescriptorSet.FromString(fh.read())
    pool = descriptor_pool.DescriptorPool()
    for f in fds.file:
        pool.Add(f)
    desc = pool.FindMessageTypeByName(message)
    return message_factory.MessageFactory(pool).GetPrototype(desc)


TRUE, FALSE = {"true", "True", "t", "1"}, {"false", "False", "f", "0"}


def scalar_same(x, v, fd):
    """envparity's scalar x (from the dump) is the value v of field fd."""
    raw = bytes.fromhex(x["hex"])
    if fd.type == FD.TYPE_STRING:
        return x["kind"] == "str" and raw == v.encode()
    if fd.type == FD.TYPE_BYTES:
        return x["kind"] == "str" and raw == v
    text = raw.decode()
    if fd.type == FD.TYPE_BOOL:
        return (text in TRUE and v is True) or (text in FALSE and v is False)
    if fd.type == FD.TYPE_ENUM:
        if x["kind"] == "int":
            return int(text) == v
        e = fd.enum_type.values_by_name.get(text)
        return e is not None and e.number == v
    if fd.type in (FD.TYPE_FLOAT, FD.TYPE_DOUBLE):
        f = to_number("float" if x["kind"] != "int" else "int", text)
        f = float(f)
        if fd.type == FD.TYPE_FLOAT:
            f = struct.unpack("f", struct.pack("f", f))[0]
        return f == v or (f != f and v != v)
    return x["kind"] == "int" and int(text) == v


def value_same(x, v, fd):
    if fd.type == FD.TYPE_MESSAGE:
        return x["kind"] == "msg" and message_same(x["fields"], v)
    return x["kind"] != "msg" and scalar_same(x, v, fd)


def message_same(fields, msg):
    """envparity's fields (from the dump) are the message msg."""
    desc = msg.DESCRIPTOR
    by_name = {}
    for x in fields:
        by_name.setdefault(x["name"], []).append(x)
    for name, xs in by_name.items():
        fd = desc.fields_by_name.get(name)
        if fd is None:
            return False
        theirs = getattr(msg, name)
        entry = fd.message_type
        if entry is not None and entry.GetOptions().map_entry:
            kfd, vfd = entry.fields_by_name["key"], entry.fields_by_name["value"]
            ours = {}
            for x in xs:
                kv = {f["name"]: f for f in x["fields"]}
                k = bytes.fromhex(kv["key"]["hex"])
                ours[k.decode() if kfd.type == FD.TYPE_STRING else
                     int(k)] = kv.get("value")
            if set(ours) != set(theirs.keys()):
                return False
            if not all(value_same(ours[k], theirs[k], vfd) for k in ours):
                return False
        elif fd.label == FD.LABEL_REPEATED:
            if len(xs) != len(theirs) or not all(
                    value_same(x, v, fd) for x, v in zip(xs, theirs)):
                return False
        elif len(xs) != 1 or not value_same(xs[0], theirs, fd):
            return False
    return all(fd.name in by_name for fd, _ in msg.ListFields())


def main_schema(dump, proto, message, files):
    cls = schema_class(proto, message)
    out = subprocess.run([dump, "--dump"] + files, check=True,
                         capture_output=True, text=True).stdout
    lines = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
    assert len(lines) == len(files), (len(lines), len(files))
    bad = []
    for path, ours in zip(files, lines):
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        msg = cls()
        try:
            text_format.Parse(text, msg)
        except text_format.ParseError as e:
            bad.append("%s: text_format refuses it with %s: %s" % (
                path, message, e))
            continue
        if not ours["ok"]:
            bad.append("%s: envparity refuses it" % path)
        elif not message_same(ours["fields"], msg):
            bad.append("%s: the trees differ" % path)
    for b in bad:
        print(b)
    print("%d read alike as %s, %d disagree" % (len(files) - len(bad),
                                                message, len(bad)))
    return 1 if bad else 0


def main():
    if len(sys.argv) > 4 and sys.argv[2] == "--schema":
        return main_schema(sys.argv[1], sys.argv[3], sys.argv[4],
                           sys.argv[5:])
    dump, files = sys.argv[1], sys.argv[2:]
    out = subprocess.run([dump, "--dump"] + files, check=True,
                         capture_output=True, text=True).stdout
    lines = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
    assert len(lines) == len(files), (len(lines), len(files))
    agree = both_refuse = skipped = known = 0
    bad = []
    for path, ours in zip(files, lines):
        with open(path, "rb") as fh:
            raw = fh.read()
        ok, theirs = python_reads(raw)
        base = path.rsplit("/", 1)[-1]
        if base in KNOWN:
            same = ok == ours["ok"] and (not ok or equal(
                from_dump(ours["fields"], None), theirs))
            if same:
                bad.append("%s: read alike, but listed as a known "
                           "difference (%s)" % (path, KNOWN[base]))
            known += 1
            continue
        if ok is None:
            skipped += 1
            continue
        if ok != ours["ok"]:
            bad.append("%s: envparity %s, text_format %s (%s)" % (
                path, "reads it" if ours["ok"] else "refuses it",
                "reads it" if ok else "refuses it",
                "" if ok else theirs))
        elif not ok:
            both_refuse += 1
        elif equal(from_dump(ours["fields"], None), theirs):
            agree += 1
        else:
            bad.append("%s: the trees differ" % path)
    for b in bad:
        print(b)
    print("%d read alike, %d refused by both, %d known differences, "
          "%d without a schema, %d disagree" % (agree, both_refuse, known,
                                                skipped, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
