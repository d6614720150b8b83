#!/usr/bin/env python3
"""Writes the seed corpora of the model-file fuzz targets (fuzz/corpus/<target>/):
small valid files of each format the readers tell apart, so the fuzzer starts
inside them rather than at their first byte.

    python3 fuzz/make_model_file_seeds.py     # rewrites the seeds in place

xgboost_model_file_fuzz: UBJSON models as XGBoost writes them (int64 keys,
optimized float arrays, the version as an int64 array), one with an optimized
top-level object; a JSON model; a legacy binary header ("binf").
lightgbm_model_file_fuzz: text headers with version=v4 / v3 / v5, CRLF lines,
none. torch_archive_fuzz: stored zips laid out as torch.jit.save and
torch.save write them, and one through zip64 end records.
"""
import io
import os
import struct
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))


def write(target, name, data):
    folder = os.path.join(HERE, "corpus", target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


# --- UBJSON (big-endian integers after a type marker) ---
def ubj_int(value):
    return b"L" + struct.pack(">q", value)


def ubj_key(text):
    return ubj_int(len(text)) + text.encode()


def ubj_str(text):
    return b"S" + ubj_key(text)


def ubj_floats(values):
    return b"[$d#" + ubj_int(len(values)) + b"".join(struct.pack(">f", v) for v in values)


def ubj_version(major, minor, patch):
    return b"[" + ubj_int(major) + ubj_int(minor) + ubj_int(patch) + b"]"


def xgboost_seeds():
    learner = (b"{" + ubj_key("attributes") + b"{}" + ubj_key("gradient_booster") + b"{" +
               ubj_key("name") + ubj_str("gbtree") + ubj_key("split_conditions") +
               ubj_floats([0.5, -1.25, 2.0]) + ubj_key("left_children") +
               b"[$i#U\x03\x01\xff\xff" + b"}" + ubj_key("flag") + b"T" + ubj_key("none") +
               b"Z" + ubj_key("ratio") + b"D" + struct.pack(">d", 0.25) + b"}")
    write("xgboost_model_file_fuzz", "ubjson_3_2",
          b"{" + ubj_key("learner") + learner + ubj_key("version") + ubj_version(3, 2, 0) + b"}")
    small_ints = b"[" + b"U\x02" + b"i\x01" + b"I\x00\x00" + b"]"
    write("xgboost_model_file_fuzz", "ubjson_small_ints",
          b"{" + b"U\x07version" + small_ints + b"U\x01xH" + ubj_key("12") + b"}")
    write("xgboost_model_file_fuzz", "ubjson_counted_object",
          b"{#U\x02" + ubj_key("learner") + b"{#U\x00" + ubj_key("version") +
          b"[$l#U\x03" + struct.pack(">iii", 1, 7, 6))
    write("xgboost_model_file_fuzz", "json_2_1",
          b'{"learner": {"attributes": {}, "objective": {"name": "reg:squarederror"}, '
          b'"ratio": [1.5, -2e3, NaN]}, "version": [2, 1, 0]}')
    # "binf", five 4-byte fields, then major_version and minor_version (little-endian).
    write("xgboost_model_file_fuzz", "legacy_binf_1_7",
          b"binf" + struct.pack("<f4I", 0.5, 4, 1, 0, 0) + struct.pack("<II", 1, 7) +
          b"\x00" * 16)


def lightgbm_seeds():
    header = "version={}\nnum_class=1\nmax_feature_idx=3\nobjective=regression\n"
    tree = "\nTree=0\nnum_leaves=2\nsplit_feature=0\nleaf_value=0.5 1.5\n\nend of trees\n"
    write("lightgbm_model_file_fuzz", "v4", ("tree\n" + header.format("v4") + tree).encode())
    write("lightgbm_model_file_fuzz", "v3_crlf",
          ("tree\n" + header.format("v3") + tree).replace("\n", "\r\n").encode())
    write("lightgbm_model_file_fuzz", "v5", ("tree\n" + header.format("v5")).encode())
    write("lightgbm_model_file_fuzz", "no_version", ("tree\nnum_class=1\n" + tree).encode())


def torch_zip(records):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        for name, data in records:
            # A fixed time: the seeds are the same bytes at every run.
            archive.writestr(zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0)), data)
    return out.getvalue()


def as_zip64(data):
    """The same zip with its directory's location in zip64 end records."""
    at = data.rindex(b"PK\x05\x06")
    entries, size, offset = struct.unpack("<HII", data[at + 10:at + 20])
    zip64_end = struct.pack("<IQHHIIQQQQ", 0x06064b50, 44, 45, 45, 0, 0, entries, entries,
                            size, offset)
    locator = struct.pack("<IIQI", 0x07064b50, 0, at, 1)
    end = struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, entries, entries, 0xffffffff,
                      0xffffffff, 0)
    return data[:at] + zip64_end + locator + end


def torch_seeds():
    script = [("addmul/version", b"3\n"), ("addmul/data.pkl", b"\x80\x02}q\x00."),
              ("addmul/code/__torch__.py", b"def forward(self, x):\n  return x\n"),
              ("addmul/constants.pkl", b"\x80\x02).")]
    write("torch_archive_fuzz", "torchscript_v3", torch_zip(script))
    write("torch_archive_fuzz", "torchscript_v11_zip64",
          as_zip64(torch_zip([("m/version", b"11\n"), ("m/code/__torch__.py", b"pass\n")])))
    write("torch_archive_fuzz", "torch_save",
          torch_zip([("archive/data.pkl", b"\x80\x02}q\x00."), ("archive/version", b"3\n")]))
    write("torch_archive_fuzz", "export_pt2",
          torch_zip([("model/archive_format", b"pt2"), ("model/version", b"0")]))


if __name__ == "__main__":
    xgboost_seeds()
    lightgbm_seeds()
    torch_seeds()
