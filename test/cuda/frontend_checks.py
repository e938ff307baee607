"""What the CUDA front ends' checks share (check_frontend.py, check_replay_frontend.py,
check_range_frontend.py): the failures so far, a check that records and prints one, and running a
command with extra environment, bounded. Imported from the scripts' own folder (on sys.path when
Python runs a script)."""
import os
import subprocess

failures = []


def check(cond, what, detail=""):
    """Records `what` as failed unless `cond`; prints the tail of `detail` with it. Returns `cond`."""
    if not cond:
        failures.append(what)
        print("FAIL:", what)
        if detail:
            print(detail[-3000:])
    return cond


def run(args, env_extra=None):
    """(exit status, stdout, stderr) of `args` in this environment plus `env_extra`; 120 s at most."""
    env = dict(os.environ)
    env.update(env_extra or {})
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, timeout=120)
    return p.returncode, p.stdout, p.stderr
