"""`dialbench run --executor ray` on a local two-CPU Ray cluster: the merged store equals the
local executor's, a re-run is up to date, a worker killed mid-shard is retried without asking
an answered call again, and each worker hosts its own llama.cpp engine."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from dialbench.errors import DialbenchError
from dialbench.pipeline.config import load_pipeline
from dialbench.pipeline.execute import PipelineResult, run_pipeline
from dialbench.pipeline.executors import ExecutorOptions, create_executor
from dialbench.schema import Dialogue, Invocation, Judgment
from dialbench.store import RunStore
from tests.conftest import DIALBENCH
from tests.llm.loopback_server import Loopback, answered_dialogues, start_loopback

pytestmark = pytest.mark.slow
ACCEPT_ALL = "[[replies:Yes.]]"  # the validator (transcript form) sees it and says yes


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def server() -> Iterator[Loopback]:
    loopback = start_loopback(0.05)
    yield loopback
    loopback.stop()


def write_pipeline(folder: Path, stages: list[dict[str, Any]], dialogues: int) -> Path:
    lines = [d.model_dump_json() + "\n" for d in answered_dialogues(dialogues)]
    (folder / "dialogues.jsonl").write_text("".join(lines), encoding="utf-8")
    scenes = [f"Scene {i}: someone plans a picnic. {ACCEPT_ALL}" for i in range(6)]
    (folder / "scenes.txt").write_text("\n".join(scenes), encoding="utf-8")
    data = {"stages": [{"stage": "import", "file": "dialogues.jsonl"}, *stages]}
    path = folder / "pipeline.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def run(path: Path, run_dir: Path, executor: str = "local", **options: Any) -> PipelineResult:
    runner = create_executor(executor, ExecutorOptions(**options))
    try:
        return run_pipeline(load_pipeline(path), run_dir, executor=runner)
    finally:
        runner.close()


def contents(run_dir: Path) -> dict[str, dict[str, Any]]:
    """Every dialogue and judgment by id, without where and when it was made."""
    with RunStore.open(run_dir, create=False) as store:
        records = [*store.records(Dialogue), *store.records(Judgment)]
    return {r.id: r.model_dump(mode="json", exclude={"provenance", "created_at"}) for r in records}


def cached_keys(run_dir: Path) -> set[str]:
    with sqlite3.connect(run_dir / "dialbench.sqlite") as db:
        return {key for (key,) in db.execute("SELECT key FROM llm_cache")}


def statuses(report: PipelineResult) -> dict[str, str]:
    return {stage.name: stage.status for stage in report.stages}


def test_sharded_stages_merge_into_what_a_local_run_stores(
    cluster: None, server: Loopback, tmp_path: Path
) -> None:
    stages = [
        {
            "stage": "simulate",
            "languages": ["en"],
            "seeds": {"contexts": 6, "scenes": "scenes.txt"},
            "user": {"models": [server.spec("user")], "form": "chat"},
            "validator": {"model": server.spec("validator"), "form": "transcript"},
            "chatbots": {"models": [server.spec("bot-a"), server.spec("bot-b")]},
            "max_utterances": 4,
            "filter": {"rules": False},
        },
        {"stage": "judge", "protocol": "holistic", "judges": [server.spec("judge")]},
    ]
    path = write_pipeline(tmp_path, stages, dialogues=8)
    local = run(path, tmp_path / "local")
    assert set(statuses(local).values()) == {"ran"}
    before = server.requests()
    sharded = run(path, tmp_path / "ray", "ray", shards=2)
    assert set(statuses(sharded).values()) == {"ran"}, sharded
    assert "2 shard(s) on Ray" in sharded.stages[2].summary

    expected, merged = contents(tmp_path / "local"), contents(tmp_path / "ray")
    assert len(expected) == 8 + 12 + 20  # imported, simulated (6 x 2), their judgments
    assert merged == expected
    assert cached_keys(tmp_path / "ray") == cached_keys(tmp_path / "local")
    with RunStore.open(tmp_path / "ray") as store:
        calls = sum(line.calls for line in store.usage())
    assert calls == server.requests() - before  # every shard's usage reached the run store

    again = run(path, tmp_path / "ray", "ray", shards=2)
    assert set(statuses(again).values()) == {"up to date"}
    assert server.requests() == before + calls


def running_judge(run_dir: Path) -> tuple[Path, int] | None:
    """A shard whose judge run is under way with a few calls cached: its store and process."""
    for store_file in run_dir.glob("shards/*/*/dialbench.sqlite"):
        try:
            with sqlite3.connect(store_file) as db:
                rows = db.execute("SELECT record FROM runs").fetchall()
                cached = db.execute("SELECT COUNT(*) FROM llm_cache").fetchone()[0]
        except sqlite3.OperationalError:  # still being created
            continue
        runs = [Invocation.model_validate_json(record) for (record,) in rows]
        for shard_run in runs:
            if shard_run.command == "judge" and shard_run.status == "running" and cached >= 3:
                assert shard_run.pid is not None
                return store_file.parent, shard_run.pid
    return None


def test_a_worker_killed_mid_shard_is_retried_and_asks_no_answered_call_again(
    cluster: None, server: Loopback, tmp_path: Path
) -> None:
    judge = {"spec": server.spec("judge-killed"), "max_concurrency": 1}
    stages = [{"stage": "judge", "protocol": "holistic", "judges": [judge]}]
    path = write_pipeline(tmp_path, stages, dialogues=24)
    repeated = server.stats()["repeated"]
    reports: list[PipelineResult] = []
    job = threading.Thread(target=lambda: reports.append(run(path, tmp_path / "ray", "ray")))
    job.start()
    deadline = time.monotonic() + 60
    while (found := running_judge(tmp_path / "ray")) is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert found is not None
    folder, pid = found
    # No answer is lost in flight: hold new requests, let those sent be answered and cached.
    server.hold()
    while server.stats()["in_flight"]:
        time.sleep(0.01)
    time.sleep(0.3)
    os.kill(pid, signal.SIGKILL)
    time.sleep(0.5)
    server.hold(False)
    job.join(timeout=90)

    assert statuses(reports[0]) == {"import": "ran", "judge": "ran"}, reports[0]
    assert server.stats()["repeated"] == repeated
    with RunStore.open(folder, create=False) as shard:
        judge_runs = [r.status for r in shard.invocations() if r.command == "judge"]
    assert judge_runs == ["interrupted", "finished"]
    assert len([j for j in contents(tmp_path / "ray") if j.startswith("j")]) == 24
    run(path, tmp_path / "local")
    assert contents(tmp_path / "ray") == contents(tmp_path / "local")


def cached_in_shards(run_dir: Path) -> int:
    total = 0
    for store_file in run_dir.glob("shards/*/*/dialbench.sqlite"):
        try:
            with sqlite3.connect(store_file) as db:
                total += db.execute("SELECT COUNT(*) FROM llm_cache").fetchone()[0]
        except sqlite3.OperationalError:  # still being created
            pass
    return total


def test_the_cli_joins_a_cluster_stops_on_ctrl_c_and_resumes(
    cluster: None, server: Loopback, tmp_path: Path
) -> None:
    ray = pytest.importorskip("ray")
    judge = {"spec": server.spec("judge-cli"), "max_concurrency": 1}
    stages = [{"stage": "judge", "protocol": "holistic", "judges": [judge]}]
    path = write_pipeline(tmp_path, stages, dialogues=40)
    address = ray.get_runtime_context().gcs_address
    command = [str(DIALBENCH), "run", str(path), "--run", str(tmp_path / "run")]
    command += ["--executor", "ray", "--address", address, "--shards", "2"]
    job = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 60
    while cached_in_shards(tmp_path / "run") < 6 and time.monotonic() < deadline:
        time.sleep(0.02)
    job.send_signal(signal.SIGINT)
    output, _ = job.communicate(timeout=60)
    assert job.returncode == 130, output
    assert "[judge] stopped" in output
    with RunStore.open(tmp_path / "run") as store:
        assert store.count(Judgment) < 40  # what the shards stored is merged all the same

    resumed = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "2 shard(s) on Ray" in resumed.stdout
    again = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert "[judge] up to date" in again.stdout
    assert len([j for j in contents(tmp_path / "run") if j.startswith("j")]) == 40


def test_each_ray_worker_hosts_its_own_llama_cpp_engine(cluster: None, tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp")
    judge = {"spec": "local:gemma3-270m", "max_concurrency": 1}
    settings = {"max_tokens": 8, "max_reasks": 0}
    stages = [{"stage": "judge", "protocol": "holistic", "judges": [judge], "settings": settings}]
    path = write_pipeline(tmp_path, stages, dialogues=2)
    sharded = run(path, tmp_path / "ray", "ray", shards=2)
    assert statuses(sharded) == {"import": "ran", "judge": "ran"}, sharded
    with RunStore.open(tmp_path / "ray") as store:
        hosts = {r.pid for r in store.invocations() if r.command == "judge"}
    assert len(hosts) == 2  # the shards ran side by side, a model loaded in each worker
    assert os.getpid() not in hosts
    run(path, tmp_path / "local")
    assert contents(tmp_path / "ray") == contents(tmp_path / "local")


def test_the_ray_executor_without_ray_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    monkeypatch.delitem(sys.modules, "dialbench.pipeline.executors.ray", raising=False)
    with pytest.raises(DialbenchError, match=r"pip install 'dialbench\[ray\]'"):
        create_executor("ray")


def test_ray_options_are_refused_by_the_local_executor() -> None:
    with pytest.raises(DialbenchError, match="--executor ray"):
        create_executor("local", ExecutorOptions(shards=2))
    with pytest.raises(DialbenchError, match=r"unknown executor 'dask' \(known: local, ray"):
        create_executor("dask")


def test_the_cli_and_the_local_executor_do_not_import_ray() -> None:
    code = (
        "import sys; from dialbench.cli import main; from dialbench.pipeline.execute import "
        "run_pipeline; from dialbench.pipeline.executors import create_executor; "
        "create_executor('local'); print('ray' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


LISTENERS = """
import ipaddress, json, os
import ray
from dialbench.pipeline.executors import ExecutorOptions, create_executor


def tree(root):
    children = {}
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{name}/stat") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue
        children.setdefault(parent, []).append(int(name))
    found, todo = [], [root]
    while todo:
        found.append(todo.pop())
        todo += children.get(found[-1], [])
    return found


def sockets(pids):
    inodes = {}
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if target.startswith("socket:["):
                    inodes[target[8:-1]] = pid
        except OSError:
            continue
    return inodes


def address(hexadecimal):
    raw = bytes.fromhex(hexadecimal)
    # /proc/net/tcp{,6} write each 32-bit word in the host's (little-endian) order
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    ip = ipaddress.ip_address(words)
    return str(getattr(ip, "ipv4_mapped", None) or ip)


def worker_pid():
    return os.getpid()


executor = create_executor("ray", ExecutorOptions(shards=1))
ray.get(ray.remote(worker_pid).remote())  # a worker, listening as well
owned = sockets(tree(os.getpid()))
listening = []
for table in ("tcp", "tcp6"):
    with open(f"/proc/net/{table}") as rows:
        for row in rows.read().splitlines()[1:]:
            fields = row.split()
            if fields[3] == "0A" and fields[9] in owned:  # 0A: LISTEN
                with open(f"/proc/{owned[fields[9]]}/comm") as comm:
                    host, port = fields[1].split(":")
                    listening.append([comm.read().strip(), address(host), int(port, 16)])
print(json.dumps({"node": ray.util.get_node_ip_address(), "listening": listening}))
executor.close()
"""


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="lists sockets from /proc")
def test_a_local_cluster_listens_on_the_loopback_address_only() -> None:
    """Without --address, Ray's own processes listened on every interface and advertised the
    machine's network address, for a cluster meant for this machine alone."""
    pytest.importorskip("ray")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    done = subprocess.run(
        [sys.executable, "-c", LISTENERS],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.splitlines()[-1])
    assert found["node"] == "127.0.0.1"
    programs = {program for program, _, _ in found["listening"]}
    assert {"gcs_server", "raylet"} <= programs, found
    exposed = [entry for entry in found["listening"] if not entry[1].startswith("127.")]
    assert not exposed, exposed
