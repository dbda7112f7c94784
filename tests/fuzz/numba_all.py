"""numba_all.py - run the numba_run.py of several differential-test
directories, each directory writing its numba.txt.  numba and numpy are
imported once (that takes seconds); each directory runs in a child process
forked from this one, so that a crash or an endless loop in Numba's code (a
kernel whose undefined behaviour the comparison leaves out can still crash
or hang) ends only that directory: its numba.txt then says so, as a
numba-error."""
import importlib.util
import os
import signal
import sys
import time

import numba  # noqa: F401 (imported once, for the children)
import numpy  # noqa: F401


# Compiling a module takes a second or two; a child still running after
# this long is in an endless loop.
TIMEOUT = 120


def wait(pid):
    """The child's status, killing it after TIMEOUT seconds: (status, hung)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status, False
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            return os.waitpid(pid, 0)[1], True
        time.sleep(0.05)


def run_one(d):
    try:
        spec = importlib.util.spec_from_file_location(
            'numba_run_' + os.path.basename(d), os.path.join(d, 'numba_run.py'))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        lines = mod.run(d)
    except Exception as e:  # the comparison reports it
        lines = ['module numba-error %s: %s' % (type(e).__name__, e)]
    with open(os.path.join(d, 'numba.txt'), 'w') as f:
        for line in lines:
            f.write(line + '\n')


for d in sys.argv[1:]:
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        status = 0
        try:
            run_one(d)
        except BaseException:
            status = 1
        os._exit(status)
    status, hung = wait(pid)
    if hung or os.WIFSIGNALED(status):
        why = 'ran over %d s' % TIMEOUT if hung else 'crashed (%s)' % signal.Signals(os.WTERMSIG(status)).name
        with open(os.path.join(d, 'numba.txt'), 'w') as f:
            f.write('module numba-error Numba %s\n' % why)
    elif os.WEXITSTATUS(status) != 0:
        sys.exit('numba_all.py: %s: the child failed' % d)
