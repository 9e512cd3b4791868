"""A real model server that answers at random: a tiny random-weight llama GGUF served by llama.cpp's own server.

``write_random_model(path, seed)`` writes a llama-architecture model of a few
hundred KB: a byte-level vocabulary (256 byte tokens plus ChatML's control
tokens), a ChatML chat template, ``tokenizer.ggml.add_space_prefix = false``,
and random weights. One residual channel carries a constant that the block
norms hide from attention and the feed-forward layers and that the output
layer turns into a large negative logit for every token except printable
ASCII and ``<|im_end|>``, so whatever the weights say, the text is printable
ASCII. ``RandomModelServer`` runs llama.cpp's server (from the ``xllamacpp``
wheel) in a child process on loopback and stops it; the server honours
``response_format`` JSON schemas through its grammar sampler, so answers are
random but well-formed.

Needs the ``test`` extra (``gguf``, ``numpy``, ``xllamacpp``).
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import Any

from fsm_runner.errors import FsmRunnerError

CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)

#: Token ids: control tokens first, then one token per byte value.
UNK, BOS, EOS, IM_START, IM_END = range(5)
FIRST_BYTE = 5
N_VOCAB = FIRST_BYTE + 256

#: Model shape: small enough to load in milliseconds, long context because byte tokens make prompts long.
N_EMBD = 64
N_HEAD = 4
N_LAYER = 2
N_FF = 128
N_CTX_TRAIN = 32_768

#: The constant on the hidden channel that carries the printable-ASCII bias, and the penalty per unit.
_BIAS_CHANNEL_VALUE = 8.0
_BIAS_PENALTY = 12.0


class RandomModelError(FsmRunnerError):
    """The random model could not be written or its server could not be started (missing extra, no port)."""


def _printable(token: int) -> bool:
    if token == IM_END:
        return True
    byte = token - FIRST_BYTE
    return token >= FIRST_BYTE and 0x20 <= byte <= 0x7E


def write_random_model(path: str | Path, seed: int = 0) -> Path:
    """Write the tiny random llama model to ``path`` (a ``.gguf`` file) and return the path.

    The same seed writes the same bytes.
    """
    try:
        # Imported by name: the test extra is optional at run time, and mypy must pass without it.
        gguf: Any = importlib.import_module("gguf")
        np: Any = importlib.import_module("numpy")
    except ImportError as err:
        raise RandomModelError(
            f"{err.name} is missing; install the test extra: pip install -e '.[test]'"
        ) from err
    rng = np.random.default_rng(seed)
    out = Path(path)
    writer = gguf.GGUFWriter(str(out), "llama")
    writer.add_name(f"fsm-runner random model (seed {seed})")
    writer.add_context_length(N_CTX_TRAIN)
    writer.add_embedding_length(N_EMBD)
    writer.add_block_count(N_LAYER)
    writer.add_feed_forward_length(N_FF)
    writer.add_head_count(N_HEAD)
    writer.add_head_count_kv(N_HEAD)
    writer.add_rope_dimension_count(N_EMBD // N_HEAD)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)

    tokens = [b"<unk>", b"<s>", b"</s>", b"<|im_start|>", b"<|im_end|>"]
    tokens += [f"<0x{value:02X}>".encode() for value in range(256)]
    types = [gguf.TokenType.UNKNOWN, *[gguf.TokenType.CONTROL] * 4, *[gguf.TokenType.BYTE] * 256]
    writer.add_tokenizer_model("llama")
    writer.add_tokenizer_pre("default")
    writer.add_token_list(tokens)
    writer.add_token_scores([0.0] * N_VOCAB)
    writer.add_token_types(types)
    writer.add_unk_token_id(UNK)
    writer.add_bos_token_id(BOS)
    writer.add_eos_token_id(IM_END)
    writer.add_add_bos_token(False)
    writer.add_add_space_prefix(False)
    writer.add_chat_template(CHATML_TEMPLATE)

    last = N_EMBD - 1

    def matrix(rows: int, cols: int) -> Any:
        return (rng.standard_normal((rows, cols)) / np.sqrt(cols)).astype(np.float32)

    embedding = rng.standard_normal((N_VOCAB, N_EMBD)).astype(np.float32)
    embedding[:, last] = _BIAS_CHANNEL_VALUE
    hidden_norm = np.ones(N_EMBD, dtype=np.float32)
    # The blocks must neither see the bias channel (norm weight 0) nor write to it (zero output rows).
    hidden_norm[last] = 0.0
    output = matrix(N_VOCAB, N_EMBD)
    output[:, last] = [0.0 if _printable(t) else -_BIAS_PENALTY for t in range(N_VOCAB)]
    writer.add_tensor("token_embd.weight", embedding)
    writer.add_tensor("output_norm.weight", np.ones(N_EMBD, dtype=np.float32))
    writer.add_tensor("output.weight", output)
    for block in range(N_LAYER):
        prefix = f"blk.{block}"
        attn_out = matrix(N_EMBD, N_EMBD)
        attn_out[last, :] = 0.0
        ffn_down = matrix(N_EMBD, N_FF)
        ffn_down[last, :] = 0.0
        writer.add_tensor(f"{prefix}.attn_norm.weight", hidden_norm)
        writer.add_tensor(f"{prefix}.attn_q.weight", matrix(N_EMBD, N_EMBD))
        writer.add_tensor(f"{prefix}.attn_k.weight", matrix(N_EMBD, N_EMBD))
        writer.add_tensor(f"{prefix}.attn_v.weight", matrix(N_EMBD, N_EMBD))
        writer.add_tensor(f"{prefix}.attn_output.weight", attn_out)
        writer.add_tensor(f"{prefix}.ffn_norm.weight", hidden_norm)
        writer.add_tensor(f"{prefix}.ffn_gate.weight", matrix(N_FF, N_EMBD))
        writer.add_tensor(f"{prefix}.ffn_up.weight", matrix(N_FF, N_EMBD))
        writer.add_tensor(f"{prefix}.ffn_down.weight", ffn_down)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return out


class RandomModelServer:
    """llama.cpp's server for one model file, in a child process on 127.0.0.1; a context manager.

    ``base_url`` is the OpenAI-compatible root (``http://127.0.0.1:PORT/v1``).
    ``stop()`` ends the child (and only it); it is safe to call twice.
    """

    def __init__(self, model: str | Path, *, n_ctx: int = 16_384, seed: int = 0, start_timeout_s: float = 60.0) -> None:
        self.model = Path(model)
        self.n_ctx = n_ctx
        self.seed = seed
        self.start_timeout_s = start_timeout_s
        self.base_url = ""
        self._child: subprocess.Popen[str] | None = None

    def start(self) -> str:
        """Start the server and wait until ``/health`` answers; returns ``base_url``."""
        command = [sys.executable, "-m", "fsm_runner.testing.random_model", "serve", str(self.model),
                   "--n-ctx", str(self.n_ctx), "--seed", str(self.seed)]
        self._child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert self._child.stdout is not None
        line = self._child.stdout.readline().strip()
        if not line.startswith("http://"):
            self.stop()
            raise RandomModelError(f"llama.cpp's server did not start for {self.model} (it printed {line!r})")
        root = line.rstrip("/")
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{root}/health", timeout=2) as answer:
                    if answer.status == 200:
                        self.base_url = f"{root}/v1"
                        return self.base_url
            except (urllib.error.URLError, OSError):
                pass
            if self._child.poll() is not None:
                break
            time.sleep(0.1)
        self.stop()
        raise RandomModelError(f"llama.cpp's server at {root} never became healthy within {self.start_timeout_s:g} s")

    def stop(self) -> None:
        child, self._child = self._child, None
        if child is None:
            return
        if child.poll() is None:
            child.terminate()
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        if child.stdout is not None:
            child.stdout.close()

    def __enter__(self) -> RandomModelServer:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()


def _serve(model: str, n_ctx: int, seed: int) -> None:
    """Child process: run the server until terminated, printing its address first."""
    import signal
    import threading

    xllamacpp: Any = importlib.import_module("xllamacpp")

    params = xllamacpp.CommonParams()
    params.model.path = model
    params.hostnames = ["127.0.0.1"]
    params.port = 0
    params.n_ctx = n_ctx
    params.n_batch = 2048
    params.n_ubatch = 512
    params.n_parallel = 1
    params.cpuparams.n_threads = 1
    params.cpuparams_batch.n_threads = 1
    params.sampling.seed = seed
    params.warmup = False
    server = xllamacpp.Server(params)
    print(server.listening_address, flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    stop.wait()
    del server


def main(argv: list[str] | None = None) -> int:
    """``write PATH [--seed N]`` writes a model; ``serve PATH`` runs the server (used by RandomModelServer)."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m fsm_runner.testing.random_model")
    parser.add_argument("command", choices=["write", "serve"])
    parser.add_argument("path")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n-ctx", type=int, default=16_384)
    args = parser.parse_args(argv)
    if args.command == "write":
        written = write_random_model(args.path, args.seed)
        print(json.dumps({"path": str(written), "bytes": written.stat().st_size}))
        return 0
    _serve(args.path, args.n_ctx, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
