#!/usr/bin/env python3
"""Independent TrUAPI peer: checks omni's `truapi frame` commands against PyPI scalecodec.

Its type definitions are its own: it parses Appendix A of the reference (../shared/reference/truapi.md) at run time
into scalecodec type registrations, and takes method ids from the wire-table vector; nothing comes from omni's
table. For every request type it
  (a) generates random values, encodes them with scalecodec, and checks `omni truapi frame decode` gives back the
      same values (in omni's JSON mapping, computed here from the value);
  (b) has `omni truapi frame encode` encode the same values and decodes the bytes with scalecodec.

scalecodec's Str/Bytes hex-decode strings starting with 0x and turn invalid UTF-8 into hex, so strings, byte
vectors and OptionBool are classes of this peer's own.

Usage: truapi_peer.py --omni PATH [--seed N] [--count N] [--reference FILE] [--wire-table FILE]
Prints its seed first; exits 0 when every check passed, 1 on a mismatch, 2 on a crash of omni.
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys

from scalecodec.base import RuntimeConfigurationObject, ScaleBytes, ScaleType
from scalecodec.types import CompactU32


# ---------------------------------------------------------------- strict primitives

class StrictStr(ScaleType):
    """str: compact length + UTF-8, refused when invalid; a "0x…" string is text."""
    def process(self):
        length = self.process_type('Compact<u32>').value
        return self.get_next_bytes(length).decode('utf-8', errors='strict')

    def process_encode(self, value):
        data = value.encode('utf-8')
        return CompactU32().encode(len(data)) + ScaleBytes(bytearray(data))


class RawBytes(ScaleType):
    """Vec<u8> as bytes, always."""
    def process(self):
        length = self.process_type('Compact<u32>').value
        return bytes(self.get_next_bytes(length))

    def process_encode(self, value):
        return CompactU32().encode(len(value)) + ScaleBytes(bytearray(value))


class OptionBoolOneByte(ScaleType):
    """parity-scale-codec OptionBool: 0 None, 1 true, 2 false."""
    def process(self):
        byte = self.get_next_bytes(1)[0]
        if byte > 2:
            raise ValueError('bad OptionBool %d' % byte)
        return None if byte == 0 else byte == 1

    def process_encode(self, value):
        return ScaleBytes(bytearray([0 if value is None else (1 if value else 2)]))


def fixed_bytes_class(count):
    class FixedBytes(ScaleType):
        def process(self):
            return bytes(self.get_next_bytes(count))

        def process_encode(self, value):
            assert len(value) == count
            return ScaleBytes(bytearray(value))
    FixedBytes.__name__ = 'FixedBytes%d' % count
    return FixedBytes


# ---------------------------------------------------------------- Appendix A → our own type model

def split_top(text, sep):
    out, depth, current = [], 0, ''
    for ch in text:
        if ch in '<([{':
            depth += 1
        elif ch in '>)]}':
            depth -= 1
        if ch == sep and depth == 0:
            out.append(current.strip())
            current = ''
        else:
            current += ch
    if current.strip():
        out.append(current.strip())
    return out


def parse_type(text, versioned):
    """A type expression as a tuple: ('str',), ('vec', T), ('named', key), …"""
    text = text.strip()
    if text.startswith('v01::'):
        return ('named', 'v01_' + text[5:])
    simple = {'str': ('str',), 'bytes': ('bytes',), 'bool': ('bool',), 'OptionBool': ('optionbool',)}
    if text in simple:
        return simple[text]
    if text in ('u8', 'u16', 'u32', 'u64', 'u128'):
        return ('int', int(text[1:]))
    m = re.fullmatch(r'\[u8; *(\d+)\]', text)
    if m:
        return ('fixed', int(m.group(1)))
    m = re.fullmatch(r'Vec<(.*)>', text)
    if m:
        return ('vec', parse_type(m.group(1), versioned))
    m = re.fullmatch(r'Option<(.*)>', text)
    if m:
        return ('option', parse_type(m.group(1), versioned))
    m = re.fullmatch(r'Compact<u(\d+)>', text)
    if m:
        return ('compact', int(m.group(1)))
    if text.startswith('(') and text.endswith(')'):
        return ('tuple', [parse_type(x, versioned) for x in split_top(text[1:-1], ',')])
    assert re.fullmatch(r'\w+', text), text
    return ('named', ('ver_' if versioned else 'v01_') + text)


def parse_fields(text, versioned):
    fields = []
    for part in split_top(text, ';'):
        name, type_text = part.split(':', 1)
        fields.append((name.strip(), parse_type(type_text, versioned)))
    return fields


def parse_appendix(path):
    text = open(path, encoding='utf-8').read()
    appendix = text[text.index('## Appendix A'):text.index('## Appendix B')]
    block = appendix.split('```')[1]
    types = {}
    section = ''
    for line in block.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith('#'):
            section = line
            continue
        if line.startswith('const '):
            continue
        name, rhs = [x.strip() for x in line.split('=', 1)]
        versioned = section.startswith('# versioned')
        key = ('ver_' if versioned else 'v01_') + name
        if rhs.startswith('struct'):
            types[key] = ('struct', parse_fields(rhs[rhs.index('{') + 1:rhs.rindex('}')], versioned))
        elif rhs.startswith('enum') or rhs.startswith('versioned'):
            variants = []
            for index, part in enumerate(split_top(rhs[rhs.index('[') + 1:rhs.rindex(']')], '|')):
                m = re.fullmatch(r'(\d+):(\w+)(.*)', part.strip(), re.S)
                assert int(m.group(1)) == index, part
                vname, rest = m.group(2), m.group(3).strip()
                if vname == 'str':        # the appendix writes the variant `String` of CustomRendererNode as str
                    vname = 'String'
                if rest in ('', '()'):
                    variants.append((vname, 'unit', None))
                elif rest.startswith('{'):
                    variants.append((vname, 'fields', parse_fields(rest[1:-1], versioned)))
                else:
                    items = [parse_type(x, versioned) for x in split_top(rest[1:-1], ',')]
                    variants.append((vname, 'tuple', items))
            types[key] = ('versioned' if rhs.startswith('versioned') else 'enum', variants)
        elif rhs.startswith('alias'):
            types[key] = ('alias', parse_type(rhs[5:], versioned))
        else:
            raise ValueError(line)
    return types


# ---------------------------------------------------------------- scalecodec registration

class Peer:
    def __init__(self, types):
        self.types = types
        self.config = RuntimeConfigurationObject()
        self.config.update_type_registry_types({})
        registry = self.config.type_registry['types']
        registry['strictstr'] = StrictStr
        registry['rawbytes'] = RawBytes
        registry['optionboolonebyte'] = OptionBoolOneByte
        self.fixed = {}
        definitions = {}
        for key, (kind, body) in types.items():
            if kind == 'struct':
                definitions[key] = {'type': 'struct', 'type_mapping': [[n, self.type_string(t)] for n, t in body]}
            elif kind in ('enum', 'versioned'):
                mapping = []
                for vname, vkind, payload in body:
                    if vkind == 'unit':
                        mapping.append([vname, 'Null'])
                    elif vkind == 'fields':
                        aux = 'aux_%s_%s' % (key, vname)
                        definitions[aux] = {'type': 'struct', 'type_mapping': [[n, self.type_string(t)] for n, t in payload]}
                        mapping.append([vname, aux])
                    elif len(payload) == 1:
                        mapping.append([vname, self.type_string(payload[0])])
                    else:
                        mapping.append([vname, '(' + ', '.join(self.type_string(t) for t in payload) + ')'])
                definitions[key] = {'type': 'enum', 'type_mapping': mapping}
            else:
                definitions[key] = self.type_string(body)
        # Aliases name other types; register structural ones first.
        self.config.update_type_registry_types({k: v for k, v in definitions.items() if isinstance(v, dict)})
        self.config.update_type_registry_types({k: v for k, v in definitions.items() if not isinstance(v, dict)})

    def type_string(self, t):
        kind = t[0]
        if kind == 'str':
            return 'StrictStr'
        if kind == 'bytes':
            return 'RawBytes'
        if kind == 'bool':
            return 'bool'
        if kind == 'optionbool':
            return 'OptionBoolOneByte'
        if kind == 'int':
            return 'u%d' % t[1]
        if kind == 'compact':
            return 'Compact<u%d>' % t[1]
        if kind == 'fixed':
            name = 'fixedbytes%d' % t[1]
            self.config.type_registry['types'][name] = fixed_bytes_class(t[1])
            return name
        if kind == 'vec':
            return 'Vec<%s>' % self.type_string(t[1])
        if kind == 'option':
            return 'Option<%s>' % self.type_string(t[1])
        if kind == 'tuple':
            return '(' + ', '.join(self.type_string(x) for x in t[1]) + ')'
        if kind == 'named':
            return t[1]
        raise ValueError(t)

    def resolve(self, t):
        while t[0] == 'named' and self.types[t[1]][0] == 'alias':
            t = self.types[t[1]][1]
        return t

    # ------------------------------------------------------------ random values (our own neutral model)

    def random_value(self, t, rng, depth=0):
        t = self.resolve(t)
        kind = t[0]
        if kind == 'str':
            return random_text(rng)
        if kind == 'bytes':
            return bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 3, 32, rng.randrange(70)])))
        if kind == 'fixed':
            return bytes(rng.randrange(256) for _ in range(t[1]))
        if kind == 'bool':
            return rng.random() < 0.5
        if kind == 'optionbool':
            return rng.choice([None, True, False])
        if kind in ('int', 'compact'):
            bits = t[1]
            return rng.choice([0, 1, (1 << bits) - 1, rng.randrange(1 << bits), rng.randrange(1 << min(bits, 14))])
        if kind == 'vec':
            count = 0 if depth > 6 else rng.choice([0, 1, 2, 3])
            return [self.random_value(t[1], rng, depth + 1) for _ in range(count)]
        if kind == 'option':
            return None if rng.random() < 0.4 or depth > 8 else self.random_value(t[1], rng, depth + 1)
        if kind == 'tuple':
            return [self.random_value(x, rng, depth + 1) for x in t[1]]
        kind, body = self.types[t[1]]
        if kind == 'struct':
            return {n: self.random_value(ft, rng, depth + 1) for n, ft in body}
        variants = body
        if depth > 6:   # end recursive trees with a variant that does not nest (Nil, String)
            flat = [v for v in variants if v[1] == 'unit'] or variants[:2]
            variants = flat
        vname, vkind, payload = rng.choice(variants)
        if vkind == 'unit':
            return (vname, None)
        if vkind == 'fields':
            return (vname, {n: self.random_value(ft, rng, depth + 1) for n, ft in payload})
        if len(payload) == 1:
            return (vname, self.random_value(payload[0], rng, depth + 1))
        return (vname, [self.random_value(x, rng, depth + 1) for x in payload])

    # ------------------------------------------------------------ neutral ⇄ scalecodec ⇄ omni JSON

    def to_scalecodec(self, t, v):
        t = self.resolve(t)
        kind = t[0]
        if kind in ('vec',):
            return [self.to_scalecodec(t[1], x) for x in v]
        if kind == 'option':
            return None if v is None else self.to_scalecodec(t[1], v)
        if kind == 'tuple':
            return tuple(self.to_scalecodec(x, y) for x, y in zip(t[1], v))
        if kind != 'named':
            return v
        kind, body = self.types[t[1]]
        if kind == 'struct':
            return {n: self.to_scalecodec(ft, v[n]) for n, ft in body}
        vname, payload = v
        _, vkind, types = next(x for x in body if x[0] == vname)
        if vkind == 'unit':
            return vname
        if vkind == 'fields':
            return {vname: {n: self.to_scalecodec(ft, payload[n]) for n, ft in types}}
        if len(types) == 1:
            return {vname: self.to_scalecodec(types[0], payload)}
        return {vname: tuple(self.to_scalecodec(x, y) for x, y in zip(types, payload))}

    def from_scalecodec(self, t, v):
        t = self.resolve(t)
        kind = t[0]
        if kind == 'vec':
            return [self.from_scalecodec(t[1], x) for x in v]
        if kind == 'option':
            return None if v is None else self.from_scalecodec(t[1], v)
        if kind == 'tuple':
            return [self.from_scalecodec(x, y) for x, y in zip(t[1], v)]
        if kind != 'named':
            return v
        kind, body = self.types[t[1]]
        if kind == 'struct':
            return {n: self.from_scalecodec(ft, v[n]) for n, ft in body}
        if isinstance(v, str):
            return (v, None)
        (vname, payload), = v.items()
        _, vkind, types = next(x for x in body if x[0] == vname)
        if vkind == 'unit':
            return (vname, None)
        if vkind == 'fields':
            return (vname, {n: self.from_scalecodec(ft, payload[n]) for n, ft in types})
        if len(types) == 1:
            return (vname, self.from_scalecodec(types[0], payload))
        return (vname, [self.from_scalecodec(x, y) for x, y in zip(types, payload)])

    def to_omni_json(self, t, v):
        """The mapping of 'omni help truapi-json', written from its description."""
        t = self.resolve(t)
        kind = t[0]
        if kind in ('bytes', 'fixed'):
            return '0x' + v.hex()
        if kind in ('int', 'compact'):
            return v if t[1] <= 32 else str(v)
        if kind in ('vec', 'tuple'):
            items = t[1] if kind == 'tuple' else [t[1]] * len(v)
            return [self.to_omni_json(x, y) for x, y in zip(items, v)]
        if kind == 'option':
            return None if v is None else self.to_omni_json(t[1], v)
        if kind != 'named':
            return v
        kind, body = self.types[t[1]]
        if kind == 'struct':
            return {n: self.to_omni_json(ft, v[n]) for n, ft in body}
        vname, payload = v
        index, (_, vkind, types) = next((i, x) for i, x in enumerate(body) if x[0] == vname)
        if vkind == 'unit':
            content = None
        elif vkind == 'fields':
            content = {n: self.to_omni_json(ft, payload[n]) for n, ft in types}
        elif len(types) == 1:
            content = self.to_omni_json(types[0], payload)
        else:
            content = [self.to_omni_json(x, y) for x, y in zip(types, payload)]
        if kind == 'versioned':
            return content if index == 0 else {vname: content}
        return vname if vkind == 'unit' else {vname: content}

    def encode(self, type_key, value):
        obj = self.config.create_scale_object(type_key)
        return bytes(obj.encode(self.to_scalecodec(('named', type_key), value)).data)

    def decode(self, type_key, data):
        obj = self.config.create_scale_object(type_key, data=ScaleBytes(bytearray(data)))
        decoded = obj.decode(check_remaining=True)
        return self.from_scalecodec(('named', type_key), decoded)


def random_text(rng):
    choices = ['', 'p:1', '0xdeadbeef', '0x', 'héllo-世界-🦀', 'a' * rng.randrange(1, 80), 'line\nbreak\t"quote"\\',
               ''.join(chr(rng.choice([rng.randrange(0x20, 0x7f), rng.randrange(0xa0, 0xd7ff), rng.randrange(0x10000, 0x10ffff)]))
                       for _ in range(rng.randrange(0, 12)))]
    return rng.choice(choices)


def compact(n):
    if n < 1 << 6:
        return bytes([n << 2])
    if n < 1 << 14:
        return ((n << 2) | 1).to_bytes(2, 'little')
    return ((n << 2) | 2).to_bytes(4, 'little')


def frame(request_id, discriminant, payload):
    rid = request_id.encode('utf-8')
    return compact(len(rid)) + rid + bytes([discriminant]) + payload


def run_omni(omni, args, stdin=None):
    result = subprocess.run([omni] + args, input=stdin, capture_output=True, timeout=60)
    if result.returncode < 0 or result.returncode == 70:
        print('CRASH: omni %s exited %d: %s' % (' '.join(args)[:200], result.returncode, result.stderr.decode(errors='replace')))
        sys.exit(2)
    return result


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    shared = os.environ.get('OMNI_VECTORS') or os.path.join(here, '..', '..', '..', 'shared', 'vectors')
    parser = argparse.ArgumentParser()
    parser.add_argument('--omni', required=True)
    parser.add_argument('--seed', type=int, default=None)
    parser.add_argument('--count', type=int, default=2, help='random values per request type')
    parser.add_argument('--reference', default=os.path.join(shared, '..', 'reference', 'truapi.md'))
    parser.add_argument('--wire-table', default=os.path.join(shared, 'truapi', 'wire_table.json'))
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 32)
    print('seed %d' % seed, flush=True)
    rng = random.Random(seed)

    peer = Peer(parse_appendix(args.reference))
    methods = json.load(open(args.wire_table))['methods']
    failures = 0
    checked_types = set()
    for method in methods:
        request_type = method['request_type']
        if request_type is None:
            continue
        discriminant = method['ids'].get('request_id', method['ids'].get('start_id'))
        key = 'ver_' + request_type
        for round_ in range(args.count):
            value = peer.random_value(('named', key), rng)
            payload = peer.encode(key, value)
            if peer.decode(key, payload) != value:
                print('PEER SELF-CHECK FAILED %s: %r' % (method['method'], value))
                failures += 1
                continue
            request_id = rng.choice(['p:%d' % rng.randrange(1, 10 ** 6), '', 'héllo-🦀'])
            wire = frame(request_id, discriminant, payload)
            expected_json = peer.to_omni_json(('named', key), value)
            # (a) scalecodec encodes, omni decodes.
            result = run_omni(args.omni, ['truapi', 'frame', 'decode', '--output', 'json', wire.hex()])
            if result.returncode != 0:
                print('FAIL decode %s (%s): exit %d %s' % (method['method'], wire.hex()[:120], result.returncode, result.stderr.decode()[:400]))
                failures += 1
                continue
            decoded = json.loads(result.stdout)
            if decoded.get('payload') != expected_json or decoded.get('request_id') != request_id \
                    or decoded.get('method') != method['method']:
                print('FAIL decode %s: frame %s\n  omni: %s\n  peer: %s' % (method['method'], wire.hex()[:200],
                                                                           json.dumps(decoded.get('payload'))[:400],
                                                                           json.dumps(expected_json)[:400]))
                failures += 1
                continue
            # (b) omni encodes the same value from JSON, scalecodec decodes.
            description = json.dumps({'request_id': request_id, 'method': method['method'],
                                      'kind': 'request' if method['kind'] == 'request' else 'start',
                                      'payload': expected_json})
            result = run_omni(args.omni, ['truapi', 'frame', 'encode', '-'], stdin=description.encode())
            if result.returncode != 0:
                print('FAIL encode %s: exit %d %s' % (method['method'], result.returncode, result.stderr.decode()[:400]))
                failures += 1
                continue
            encoded = bytes.fromhex(result.stdout.decode().strip())
            header = frame(request_id, discriminant, b'')
            if not encoded.startswith(header) or peer.decode(key, encoded[len(header):]) != value or encoded != wire:
                print('FAIL encode %s: omni %s\n  peer %s' % (method['method'], encoded.hex()[:200], wire.hex()[:200]))
                failures += 1
                continue
            checked_types.add(request_type)
    print('%d request types, %d values each, %d failures (seed %d)' % (len(checked_types), args.count, failures, seed))
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
