# Generates a BPF program with random CO-RE relocations, for differential
# tests of btf/core against libbpf and bpftool (see the .bpf.c headers).
# Usage: python3 gen.py [--flavors] SEED N [BTF.json]; BTF.json is
# "bpftool btf dump file host-6.18.44.btf -j" (default host.json).
# Plain: random fields (through nested structs, anonymous members and
# array elements), types and enumerators of the kernel's BTF, as its
# vmlinux.h names them. --flavors: local flavors of its structs and enums,
# with members left out, retyped or made up, and bitfields of other widths.
import json, random, sys, collections
args = sys.argv[1:]
flavors = args[:1] == ['--flavors']
if flavors:
    args = args[1:]
seed = int(args[0]); n = int(args[1])
btf_json = args[2] if len(args) > 2 else 'host.json'
rng = random.Random(seed)
T = {t['id']: t for t in json.load(open(btf_json))['types']}
names = collections.Counter((t['kind'], t.get('name')) for t in T.values())
def strip(tid):
    while tid and T[tid]['kind'] in ('TYPEDEF','CONST','VOLATILE','RESTRICT','TYPE_TAG'):
        tid = T[tid]['type_id']
    return tid
def cname(t):
    k = t['kind']
    if k == 'STRUCT': return 'struct ' + t['name']
    if k == 'UNION': return 'union ' + t['name']
    if k in ('ENUM','ENUM64'): return 'enum ' + t['name']
    if k == 'TYPEDEF': return t['name']
def uniq(t): return t.get('name') and t['name'] != '(anon)' and names[(t['kind'], t['name'])] == 1


def plain():
    aggs = [t for t in T.values() if t['kind'] in ('STRUCT','UNION') and t.get('name') and t['name'] != '(anon)' and names[(t['kind'], t['name'])] == 1 and t.get('members')]
    # vmlinux.h renames types of one name that collide across kinds; keep unique names only
    def paths(t, depth):
        # yields (expr suffix, member type id, is_bitfield)
        out = []
        for m in t['members']:
            mt = strip(m['type_id'])
            if not m['name'] or m['name'] == '(anon)':
                if mt and T[mt]['kind'] in ('STRUCT','UNION') and depth < 3:
                    out += paths(T[mt], depth + 1)
                continue
            bf = m.get('bitfield_size', 0) > 0
            out.append(('.' + m['name'], mt, bf))
            if mt and depth < 2 and not bf:
                k = T[mt]['kind']
                if k in ('STRUCT','UNION'):
                    out += [('.' + m['name'] + s, x, b) for s, x, b in paths(T[mt], depth + 1)]
                elif k == 'ARRAY' and T[mt]['nr_elems'] > 1:
                    i = rng.randrange(T[mt]['nr_elems'])
                    et = strip(T[mt]['type_id'])
                    out.append(('.%s[%d]' % (m['name'], i), et, False))
                    if et and T[et]['kind'] in ('STRUCT','UNION'):
                        out += [('.%s[%d]%s' % (m['name'], i, s), x, b) for s, x, b in paths(T[et], depth + 1)]
        return out
    lines = []
    for i in range(n):
        r = rng.random()
        if r < 0.75:
            t = rng.choice(aggs)
            ps = paths(t, 0)
            if not ps: continue
            suf, mt, bf = rng.choice(ps)
            integral = mt and T[mt]['kind'] in ('INT','ENUM','ENUM64')
            kinds = [0, 1, 2] + ([3, 4, 5] if integral and not suf.endswith(']') else [])
            if bf: kinds = [0, 1, 2, 3, 4, 5]
            for k in rng.sample(kinds, min(len(kinds), 3)):
                lines.append('out[%d] = __builtin_preserve_field_info(((%s *)p)->%s, %d);' % (len(lines), cname(t), suf[1:], k))
        elif r < 0.9:
            t = rng.choice(aggs)
            f = rng.choice(['bpf_core_type_exists', 'bpf_core_type_size', 'bpf_core_type_id_kernel'])
            lines.append('out[%d] = %s(%s);' % (len(lines), f, cname(t)))
        else:
            es = [t for t in T.values() if t['kind'] in ('ENUM','ENUM64') and t.get('name') and t['name'] != '(anon)' and names[(t['kind'], t['name'])] == 1 and t.get('values')]
            e = rng.choice(es)
            v = rng.choice(e['values'])
            f = rng.choice(['bpf_core_enum_value_exists', 'bpf_core_enum_value'])
            lines.append('out[%d] = %s(enum %s, %s);' % (len(lines), f, e['name'], v['name']))
    print('''#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
char LICENSE[] SEC("license") = "GPL";
long out[%d];
SEC("kprobe/do_exit")
int gen(void *p)
{''' % max(1, len(lines)))
    for l in lines: print('\t' + l)
    print('\treturn 0;\n}')


def flavored():
    aggs = [t for t in T.values() if t['kind'] in ('STRUCT','UNION') and uniq(t) and t.get('members') and any(m['name'] and m['name'] != '(anon)' for m in t['members'])]
    enums = [t for t in T.values() if t['kind'] in ('ENUM','ENUM64') and uniq(t) and t.get('values')]
    decls, lines = [], []
    ints = ['int', 'long', 'unsigned char', 'short', 'unsigned long long', 'signed char', '_Bool']
    def memtype(mt):
        k = T[mt]['kind'] if mt else 'VOID'
        r = rng.random()
        if k in ('INT', 'ENUM', 'ENUM64'):
            if r < 0.8: return rng.choice(ints), ''
            return 'void *', ''
        if k == 'PTR':
            if r < 0.6: return 'void *', ''
            if r < 0.8: return 'int *', ''
            return 'long', ''
        if k == 'ARRAY':
            ne = T[mt]['nr_elems']
            if r < 0.5: return 'int', '[%d]' % max(1, ne)
            if r < 0.8: return 'char', '[%d]' % max(1, ne + rng.choice([-1, 0, 1]))
            return 'long', ''
        if k in ('STRUCT', 'UNION') and uniq(T[mt]):
            kw = 'struct' if k == 'STRUCT' else 'union'
            if r < 0.7: return kw + ' ' + T[mt]['name'], ''
            return 'int', ''
        return None, None
    for f in range(n):
        if rng.random() < 0.8:
            t = rng.choice(aggs)
            kw = 'struct' if t['kind'] == 'STRUCT' else 'union'
            if rng.random() < 0.15: kw = 'union' if kw == 'struct' else 'struct'
            fname = '%s___g%d_%d' % (t['name'], seed, f)
            mems = [m for m in t['members'] if m['name'] and m['name'] != '(anon)']
            pick = rng.sample(mems, min(len(mems), rng.randint(1, 4)))
            body, accs = [], []
            for m in pick:
                mt = strip(m['type_id'])
                if m.get('bitfield_size', 0) > 0 or (mt and T[mt]['kind'] == 'INT' and rng.random() < 0.2):
                    w = max(1, min(31, m.get('bitfield_size', 0) or 8) + rng.choice([-2, 0, 0, 3]))
                    body.append('\t%s %s: %d;' % (rng.choice(['unsigned long long', 'long long']), m['name'], w))
                    accs.append((m['name'], True))
                    continue
                ty, arr = memtype(mt)
                if ty is None: continue
                body.append('\t%s %s%s;' % (ty, m['name'], arr))
                accs.append((m['name'] + ('[0]' if arr and rng.random() < 0.5 else ''), ty in ints or (ty == 'long' and not arr)))
            if rng.random() < 0.4:
                body.append('\tint gen_missing_%d;' % f)
                accs.append(('gen_missing_%d' % f, True))
            if not accs: continue
            decls.append('%s %s {\n%s\n} __attribute__((preserve_access_index));' % (kw, fname, '\n'.join(body)))
            for a, integral in accs:
                kinds = [0, 1, 2] + ([3, 4, 5] if integral and not a.endswith(']') else [])
                for k in rng.sample(kinds, min(len(kinds), 3)):
                    lines.append('out[%d] = __builtin_preserve_field_info(((%s %s *)p)->%s, %d);' % (len(lines), kw, fname, a, k))
            for fn in rng.sample(['bpf_core_type_exists', 'bpf_core_type_size', 'bpf_core_type_id_kernel'], 1):
                lines.append('out[%d] = %s(%s %s);' % (len(lines), fn, kw, fname))
        else:
            e = rng.choice(enums)
            vals = rng.sample(e['values'], min(len(e['values']), 2))
            fname = '%s___g%d_%d' % (e['name'], seed, f)
            body = ['\t%s___g%d_%d = %d,' % (v['name'], seed, f, v['val'] + rng.choice([0, 0, 1])) for v in vals]
            body.append('\tGEN_MISSING___g%d_%d = 3,' % (seed, f))
            decls.append('enum %s {\n%s\n};' % (fname, '\n'.join(body)))
            for v in vals + [{'name': 'GEN_MISSING'}]:
                for fn in ['bpf_core_enum_value_exists', 'bpf_core_enum_value']:
                    lines.append('out[%d] = %s(enum %s, %s___g%d_%d);' % (len(lines), fn, fname, v['name'], seed, f))
    print('#include "vmlinux.h"\n#include <bpf/bpf_helpers.h>\n#include <bpf/bpf_core_read.h>\nchar LICENSE[] SEC("license") = "GPL";')
    print('\n'.join(decls))
    print('long out[%d];\nSEC("kprobe/do_exit")\nint gen(void *p)\n{' % max(1, len(lines)))
    for l in lines: print('\t' + l)
    print('\treturn 0;\n}')


flavored() if flavors else plain()
