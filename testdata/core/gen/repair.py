# Drops the relocation lines of a generated program that clang 14 cannot
# compile (it aborts on some bitfield and array accesses), one at a time
# by bisection. Usage: python3 repair.py FILE.bpf.c (rewritten in place).
import os, subprocess, sys, tempfile
tmp = tempfile.mkdtemp()
src=open(sys.argv[1]).read()
head,rest=src.split('int gen(void *p)\n{\n')
lines=[l for l in rest.split('\n') if l.startswith('\tout[')]
def ok(ls, out=os.path.join(tmp, 'bis.o')):
    s=head+'int gen(void *p)\n{\n'+'\n'.join(ls)+'\n\treturn 0;\n}\n'
    open(os.path.join(tmp, 'bis.c'),'w').write(s)
    return subprocess.run(['clang','-g','-O2','-target','bpf','-D__TARGET_ARCH_x86','-I',os.path.dirname(os.path.abspath(sys.argv[1])),'-c',os.path.join(tmp, 'bis.c'),'-o',out],capture_output=True).returncode==0
dropped=0
while not ok(lines):
    lo,hi=0,len(lines)
    while hi-lo>1:
        mid=(lo+hi)//2
        if ok(lines[:mid]): lo=mid
        else: hi=mid
    del lines[hi-1]; dropped+=1
s=head+'int gen(void *p)\n{\n'+'\n'.join(lines)+'\n\treturn 0;\n}\n'
open(sys.argv[1],'w').write(s)
print(sys.argv[1], 'dropped', dropped, 'kept', len(lines))
