#! needs: stapbpf
# A program the verifier refuses: the session names the probe, exits 1,
# runs no begin probe and leaves no map or program behind (bpf_leftovers
# checks after the case); -vvv shows the verifier's log.  (The script line
# of the refusal comes from the log's source notes, which 6.1 does not
# print before the first instruction.)  The refusal is
# real: a compiled object whose program's first instruction is replaced by
# a read above the stack frame (r0 = *(u64 *)(r10 + 8)), which no verifier
# accepts, loaded by stapbpf.
cd "$CASE_TMP" || exit 1
$STAP -p4 -m refused -e 'probe kernel.trace("syscalls:sys_enter_getpid") { println("x") }
                         probe begin { println("begin") }' >/dev/null || exit 1
python3 - refused.bo <<'PY' || exit 1
import struct, sys
path = sys.argv[1]
elf = bytearray(open(path, "rb").read())
shoff, = struct.unpack_from("<Q", elf, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
def section(i):
    name, _, _, _, offset, size = struct.unpack_from("<IIQQQQ", elf, shoff + i * shentsize)
    return name, offset, size
strtab = section(shstrndx)[1]
def name_of(i):
    start = strtab + section(i)[0]
    return bytes(elf[start:elf.index(b"\0", start)]).decode()
names = [name_of(i) for i in range(shnum)]
prog = next(i for i, n in enumerate(names) if n.startswith("raw_tp/"))
rel = names.index(".rel" + names[prog])
_, rel_offset, rel_size = section(rel)
relocated = {struct.unpack_from("<Q", elf, rel_offset + k)[0] for k in range(0, rel_size, 16)}
assert 0 not in relocated, "the first instruction is relocated"
elf[section(prog)[1]:section(prog)[1] + 8] = bytes([0x79, 0xA0, 0x08, 0, 0, 0, 0, 0])
open(path, "wb").write(elf)
PY
echo "== default"
$STAPBPF refused.bo 2>&1
echo "status $?"
echo "== -vvv"
$STAPBPF -vvv refused.bo >vvv.txt 2>&1
echo "status $?"
grep -q 'invalid read from stack' vvv.txt && echo "the verifier's log is shown"
