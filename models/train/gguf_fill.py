"""Writes trained weights into a GGUF file that `arena synth` laid out: the metadata (architecture,
context, rope, norms, tokenizer, chat template) stays as arena wrote it, and each tensor's bytes
are replaced by the trained values in the tensor's own type (F32 or F16)."""
import shutil
import struct

import numpy as np

GGUF_TYPES = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
TENSOR_DTYPES = {0: np.float32, 1: np.float16}


class Reader:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, fmt):
        v = struct.unpack_from("<" + fmt, self.data, self.pos)
        self.pos += struct.calcsize("<" + fmt)
        return v[0]

    def string(self):
        n = self.take("Q")
        s = self.data[self.pos:self.pos + n].decode("utf-8")
        self.pos += n
        return s

    def value(self, t):
        if t == 8:
            return self.string()
        if t == 9:
            inner, n = self.take("I"), self.take("Q")
            return [self.value(inner) for _ in range(n)]
        return self.take(GGUF_TYPES[t])


def read_layout(path):
    """The metadata and {tensor name: (dims, type, absolute offset)} of a GGUF file."""
    with open(path, "rb") as f:
        data = f.read()
    r = Reader(data)
    if data[:4] != b"GGUF":
        raise ValueError(f"{path} is not a GGUF file")
    r.pos = 4
    r.take("I")
    n_tensors, n_kv = r.take("Q"), r.take("Q")
    meta = {}
    for _ in range(n_kv):
        key = r.string()
        meta[key] = r.value(r.take("I"))
    infos = []
    for _ in range(n_tensors):
        name = r.string()
        dims = [r.take("Q") for _ in range(r.take("I"))]
        infos.append((name, dims, r.take("I"), r.take("Q")))
    align = meta.get("general.alignment", 32)
    start = (r.pos + align - 1) // align * align
    return meta, {n: (d, t, start + o) for n, d, t, o in infos}


def read_tensors(path):
    """{tensor name: numpy float32 array shaped [rows, row length]} of an F32 / F16 GGUF file (the
    inverse of fill)."""
    _, layout = read_layout(path)
    data = np.memmap(path, dtype=np.uint8, mode="r")
    out = {}
    for name, (dims, ttype, offset) in layout.items():
        if ttype not in TENSOR_DTYPES:
            raise ValueError(f"{path}: {name} has tensor type {ttype}, not F32 or F16")
        dtype = np.dtype(TENSOR_DTYPES[ttype])
        count = int(np.prod(dims))
        values = np.frombuffer(data[offset:offset + count * dtype.itemsize].tobytes(), dtype=dtype)
        out[name] = values.reshape(dims[::-1]).astype(np.float32)
    return out


def set_context(path, context):
    """Rewrites the context length a GGUF file declares (`<arch>.context_length`, a uint32) in
    place; returns the old value."""
    meta, _ = read_layout(path)
    key = f"{meta['general.architecture']}.context_length".encode()
    with open(path, "r+b") as f:
        data = f.read()
        at = data.find(struct.pack("<Q", len(key)) + key + struct.pack("<I", 4))
        if at < 0:
            raise ValueError(f"{path}: no uint32 {key.decode()}")
        f.seek(at + 8 + len(key) + 4)
        f.write(struct.pack("<I", context))
    return meta[key.decode()]


def fill(template, output, tensors):
    """Copies `template` to `output` with every tensor replaced by tensors[name] (numpy, shaped
    [rows, row length] as torch stores a Linear's weight; GGUF's dims list the row length first)."""
    _, layout = read_layout(template)
    missing = set(layout) - set(tensors)
    extra = set(tensors) - set(layout)
    if missing or extra:
        raise ValueError(f"tensor names differ: the file lacks {sorted(extra)}, training lacks {sorted(missing)}")
    shutil.copyfile(template, output)
    with open(output, "r+b") as f:
        for name, (dims, ttype, offset) in layout.items():
            if ttype not in TENSOR_DTYPES:
                raise ValueError(f"{name}: tensor type {ttype} (make the template with --dtype f16)")
            value = np.ascontiguousarray(tensors[name], dtype=TENSOR_DTYPES[ttype])
            if list(value.shape[::-1]) != dims:
                raise ValueError(f"{name}: trained shape {value.shape} but the file has dims {dims}")
            f.seek(offset)
            f.write(value.tobytes())
