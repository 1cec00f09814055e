-- mmuscope schema 7: the KVM ioctls (syscalls:sys_enter_ioctl/sys_exit_ioctl),
-- stable ABI on every kernel: a dirty-log phase starts and ends with its
-- ioctl (docs/kvm-mmu.md, "KVM ioctls").

-- One row per enter and per exit; an exit is the exit of the last enter of
-- the same pid, and carries only ret.
CREATE TABLE ioctl (
	seq INTEGER PRIMARY KEY,
	ts INTEGER NOT NULL,
	cpu INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	op TEXT NOT NULL,		-- 'enter' or 'exit'
	fd INTEGER,			-- enter: the file descriptor
	cmd INTEGER,			-- enter: the request number
	name TEXT,			-- enter: KVM_GET_DIRTY_LOG, ...; NULL for other requests
	arg INTEGER,			-- enter: the argument (a user pointer)
	ret INTEGER			-- exit: the return value
);

-- Each ioctl with its exit: when it began and ended, what it returned.
CREATE VIEW ioctl_call AS
SELECT e.seq, e.ts AS start_ts, x.ts AS end_ts, x.ts - e.ts AS duration_ns, e.cpu, e.pid,
       e.fd, e.cmd, e.name, e.arg, x.ret
FROM ioctl e LEFT JOIN ioctl x ON x.seq = (SELECT min(seq) FROM ioctl y
	WHERE y.pid = e.pid AND y.seq > e.seq AND y.op = 'exit')
WHERE e.op = 'enter';
CREATE INDEX ioctl_pid ON ioctl (pid, seq);
