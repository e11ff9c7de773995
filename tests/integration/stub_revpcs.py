# gdb helper for stub-reverse.sh (loaded with `source`).
#
# `revpcs-to ADDR FILE`: reverse-stepi until the pc is ADDR, writing the
# pc after every step (ADDR last) to FILE, oldest first, one lowercase hex
# number per line: the list gdb_revpcs.py makes from gdb's record full
# log over the same span, here through the stub's `bs` packets.
import gdb


class RevPcsTo(gdb.Command):
    """revpcs-to ADDR FILE"""

    def __init__(self):
        super().__init__("revpcs-to", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        args = arg.split()
        if len(args) != 2:
            raise gdb.GdbError("usage: revpcs-to ADDR FILE")
        stop, path = int(args[0], 0), args[1]
        pcs = []
        for _ in range(1000000):
            gdb.execute("reverse-stepi", to_string=True)
            pc = int(gdb.parse_and_eval("$pc"))
            if pcs and pc == pcs[-1]:
                raise gdb.GdbError("revpcs-to: reverse-stepi did not move from %#x" % pc)
            pcs.append(pc)
            if pc == stop:
                break
        else:
            raise gdb.GdbError("revpcs-to: %#x not reached" % stop)
        pcs.reverse()
        with open(path, "w") as f:
            for pc in pcs:
                f.write("%x\n" % pc)


RevPcsTo()
