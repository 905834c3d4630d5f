"""The cost rule behind device="auto" (sal_core.devices), at the sizes it was set from."""

from __future__ import annotations

import pytest

from sal_core.devices import GPU_MIN_CELLS, choose_device

PAPER = (2000, 10)  # selection bias, the paper setting: 2·10⁴ cells


@pytest.mark.parametrize("algorithm", ["sal", "erm", "irm", "wdrl"])
@pytest.mark.parametrize("kind", ["linear", "mlp"])
def test_the_paper_setting_runs_on_the_cpu(kind: str, algorithm: str) -> None:
    # Measured on an H200 (docs/benchmarks.md): MLP SAL 14.2 s CUDA vs 10.0 s on 16 CPU threads.
    choice = choose_device(*PAPER, model_kind=kind, algorithm=algorithm)
    assert choice.device == "cpu"
    assert "2.0e+04 cells" in choice.reason and algorithm in choice.reason and "below" in choice.reason


@pytest.mark.parametrize(
    ("n_rows", "n_features", "kind", "device"),
    [
        (10**7, 100, "linear", "cuda"),  # the measured point: 18.2 s CUDA vs 22.3 s on 16 threads
        (10**7, 99, "linear", "cpu"),
        (10**6, 100, "linear", "cpu"),  # 10^8 cells: over the default max_cells, still the CPU's
        (10**5, 10, "mlp", "cuda"),  # exactly 10^6 cells
        (10**5 - 1, 10, "mlp", "cpu"),
        (10**6, 100, "mlp", "cuda"),  # issue 9's large MLP setting
    ],
)
def test_auto_switches_to_cuda_at_the_threshold(n_rows: int, n_features: int, kind: str, device: str) -> None:
    choice = choose_device(n_rows, n_features, model_kind=kind, algorithm="sal")
    assert choice.device == device
    assert (n_rows * n_features >= GPU_MIN_CELLS[kind]) == (device == "cuda")


def test_without_a_gpu_auto_stays_on_the_cpu_and_says_so() -> None:
    choice = choose_device(10**6, 100, model_kind="mlp", algorithm="sal", gpu_available=False)
    assert choice.device == "cpu"
    assert "would be faster on a GPU" in choice.reason and "has none" in choice.reason


@pytest.mark.parametrize("gpu", [True, False])
@pytest.mark.parametrize("requested", ["cpu", "cuda"])
def test_an_explicit_device_is_kept_whatever_the_size(requested: str, gpu: bool) -> None:
    for n_rows in (10, 10**8):
        choice = choose_device(
            n_rows, 100, model_kind="mlp", algorithm="erm", requested=requested, gpu_available=gpu
        )
        assert choice.device == requested and choice.reason == f"requested {requested}"


def test_an_unknown_model_kind_counts_as_an_mlp_and_a_bad_device_is_refused() -> None:
    assert choose_device(10**5, 10, model_kind="tree", algorithm="erm").device == "cuda"
    with pytest.raises(ValueError, match="'auto', 'cpu' or 'cuda'"):
        choose_device(10, 10, model_kind="linear", algorithm="erm", requested="tpu")
