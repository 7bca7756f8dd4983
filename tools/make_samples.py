"""Build sample_data/ from the raw public files in ../shared/datasets (the app never runs this).

Usage: ``.venv/bin/python tools/make_samples.py [RAW_DIR] [OUT_DIR]``
(defaults: /work/shared/datasets and <repo>/sample_data).

Every raw file is checked against the md5 recorded in its SOURCE.md before it is converted, so the
shipped files are a reproducible function of known bytes. Each output is a gzip CSV (gzip mtime 0, so
a rebuild gives identical bytes): the target column first, then the features in the paper's encoding
(Ahmed, Narasimhan, Agarwal 2015, Table 1 and footnote 4; Ditzler, Polikar, Rosen 2015, Section IV):

- mushroom.csv.gz   class (poisonous/edible) + one-hot of the 22 attributes = 116 indicators
                    ("?" in stalk-root gets no indicator: a missing value is an all-zero block)
- adult.csv.gz      income (>50K/<=50K) + the 123 LIBSVM a9a indicators (a9a + a9a.t, 48,842 rows),
                    named after the Adult attribute each one encodes (derived and checked row by row)
- semeion.csv.gz    digit (0-9) + 256 binary pixels r1c1..r16c16 (row-major 16 x 16)
- splice.csv.gz     class (EI/IE/N) + one-hot of the 60 bases over A, C, G, T = 240 indicators
                    (ambiguity codes D, N, R, S give an all-zero block)
- waveform.csv.gz   class (0/1/2) + 40 real features wave1..wave21, noise1..noise19 (2 decimals)
- optdigits.csv.gz  digit (0-9) + 64 pixel counts r1c1..r8c8 (0..16); rows of optdigits.tra then .tes

The two wide text data sets of Ahmed et al. (Table 1) are stored as ``.npz`` (numpy arrays, no pickles; zip
entries with a fixed timestamp, so a rebuild gives identical bytes): ``X`` the uint8 codes in the paper's
encoding (three bins at mean +- one sample standard deviation of each word count: 0 below, 1 inside,
2 at or above), ``y`` the label (1 or 2, as in the .mat file) and ``feature_names`` (w1, w2, ...):

- pcmac.npz         1,943 x 3,289 (20 Newsgroups comp.sys.ibm.pc.hardware vs comp.sys.mac.hardware)
- basehock.npz      1,993 x 4,862 (20 Newsgroups rec.sport.baseball vs rec.sport.hockey)
"""

from __future__ import annotations

import gzip
import hashlib
import io
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]

# md5 of every raw file, copied from the SOURCE.md next to it.
RAW_MD5 = {
    "mushroom/agaricus-lepiota.data": "08abc775ae2a79b402cc75f3a29e4b7d",
    "mushroom/agaricus-lepiota.names": "d86b44d22bfed9d671036245aeef6005",
    "adult/adult.data": "5d7c39d7b8804f071cdd1f2a7c460872",
    "adult/adult.test": "35238206dfdf7f1fe215bbb874adecdc",
    "adult/adult.names": "1a7cdb3ff7a1b709968b1c7a11def63e",
    "adult_libsvm_a9a/a9a": "fb3596510d780aaf76a06dc721d49662",
    "adult_libsvm_a9a/a9a.t": "f0bb16cf1ee3e80ff560e9d132ee647e",
    "semeion/semeion.data": "cb545d371d2ce14ec121470795a77432",
    "splice/splice.data": "3fca6cbad4b2e36128dd8c4e54240652",
    "waveform/waveform-+noise.data": "9069f05dfd0397a691af0c8ecf2cc7d1",
    "optdigits/optdigits.tra": "268ce7771f3f15afbc54402478b1d454",
    "optdigits/optdigits.tes": "a0339c30a8a5312a1b6f9e5c719dcce5",
    "pcmac/PCMAC.mat": "8aa4e3a95804280afbce1055c979d38a",
    "basehock/BASEHOCK.mat": "33ec23106331f56b2e3939b75b04ea3d",
}

ADULT_COLUMNS = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
                 "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country",
                 "income"]
# Platt's a9a layout: consecutive blocks of indicators per attribute (LIBSVM feature 1 is the first).
ADULT_BLOCKS = [("age", 5), ("workclass", 8), ("fnlwgt", 5), ("education", 16), ("education-num", 5),
                ("marital-status", 7), ("occupation", 14), ("relationship", 6), ("race", 5), ("sex", 2),
                ("capital-gain", 2), ("capital-loss", 2), ("hours-per-week", 5), ("native-country", 41)]


def raw_path(raw: Path, rel: str) -> Path:
    """The raw file, after checking its md5 against SOURCE.md's."""
    path = raw / rel
    digest = hashlib.md5(path.read_bytes()).hexdigest()
    if digest != RAW_MD5[rel]:
        raise SystemExit(f"{path}: md5 {digest} differs from SOURCE.md's {RAW_MD5[rel]}")
    return path


def write_csv(df: pd.DataFrame, path: Path, float_format: str | None = None) -> None:
    """Deterministic gzip CSV: same frame, same bytes (mtime 0, fixed level)."""
    text = df.to_csv(index=False, float_format=float_format, lineterminator="\n")
    with open(path, "wb") as fh, gzip.GzipFile(filename="", mode="wb", fileobj=fh, compresslevel=9, mtime=0) as gz:
        gz.write(text.encode("utf-8"))


def mushroom_value_names(names_file: Path) -> list[tuple[str, dict[str, str]]]:
    """(attribute, {letter: word}) for the 22 attributes, parsed from section 7 of agaricus-lepiota.names."""
    text = names_file.read_text()
    block = text.split("7. Attribute Information:")[1].split("8. Missing Attribute Values")[0]
    attrs: list[tuple[str, dict[str, str]]] = []
    for line in block.splitlines()[1:]:
        line = line.strip()
        if not line:
            continue
        head, _, rest = line.partition(":") if line[0].isdigit() else ("", "", line)
        if head:
            attrs.append((head.split(".", 1)[1].strip().rstrip("?"), {}))
        for pair in rest.replace(" ", "").split(","):
            if "=" in pair:
                word, letter = pair.split("=")
                attrs[-1][1][letter] = word
    assert len(attrs) == 22, attrs
    return attrs


def make_mushroom(raw: Path) -> pd.DataFrame:
    data = pd.read_csv(raw_path(raw, "mushroom/agaricus-lepiota.data"), header=None, dtype=str)
    attrs = mushroom_value_names(raw_path(raw, "mushroom/agaricus-lepiota.names"))
    out = {"class": np.where(data[0] == "p", "poisonous", "edible")}
    for col, (attr, words) in enumerate(attrs, start=1):
        # Indicators in the order the .names file lists the values; only values that occur; "?" none.
        for letter, word in words.items():
            hit = (data[col] == letter).to_numpy()
            if letter != "?" and hit.any():
                out[f"{attr}={word}"] = hit.astype(np.int8)
        unknown = set(data[col]) - set(words)
        assert not unknown, (attr, unknown)
    df = pd.DataFrame(out)
    # 116 indicators as in the paper's Table 1: veil-type=partial is constant but kept (one-hot of all 22
    # attributes); stalk-root "?" gets none (117 with it, as pd.get_dummies would give).
    assert df.shape == (8124, 1 + 116), df.shape
    return df


def make_adult(raw: Path) -> pd.DataFrame:
    from sklearn.datasets import load_svmlight_file

    parts = [load_svmlight_file(raw_path(raw, f"adult_libsvm_a9a/{f}"), n_features=123) for f in ("a9a", "a9a.t")]
    X = np.vstack([p[0].toarray() for p in parts]).astype(np.int8)
    y = np.concatenate([p[1] for p in parts])
    raw_path(raw, "adult/adult.names")
    kw = dict(header=None, names=ADULT_COLUMNS, skipinitialspace=True)
    orig = pd.concat([pd.read_csv(raw_path(raw, "adult/adult.data"), **kw),
                      pd.read_csv(raw_path(raw, "adult/adult.test"), skiprows=1, **kw)], ignore_index=True)
    # a9a rows are the UCI rows in the same order: the labels must agree row by row.
    assert ((orig["income"].str.rstrip(".") == ">50K").to_numpy() == (y > 0)).all()
    names, start = [], 0
    for attr, width in ADULT_BLOCKS:
        block, values = X[:, start:start + width], orig[attr]
        assert set(np.unique(block.sum(axis=1))) <= {0, 1}, attr
        if values.dtype.kind in "iu":
            # Platt's quantile bins: name each by its observed range; ranges must be ordered and disjoint.
            lo = [int(values[block[:, j] == 1].min()) for j in range(width)]
            hi = [int(values[block[:, j] == 1].max()) for j in range(width)]
            assert all(hi[j] < lo[j + 1] for j in range(width - 1)), (attr, lo, hi)
            names += [f"{attr}={a}" if a == b else f"{attr}={a}..{b}" for a, b in zip(lo, hi, strict=True)]
        else:
            for j in range(width):
                (value,) = values[block[:, j] == 1].unique()  # exactly one raw category per indicator
                assert ((values == value).to_numpy() == (block[:, j] == 1)).all(), (attr, value)
                names.append(f"{attr}={value}")
            assert ((block.sum(axis=1) == 0) == (values == "?").to_numpy()).all(), attr
        start += width
    df = pd.DataFrame(X, columns=names)
    df.insert(0, "income", np.where(y > 0, ">50K", "<=50K"))
    return df


def pixel_names(side: int) -> list[str]:
    return [f"r{r}c{c}" for r in range(1, side + 1) for c in range(1, side + 1)]


def make_semeion(raw: Path) -> pd.DataFrame:
    values = pd.read_csv(raw_path(raw, "semeion/semeion.data"), header=None, sep=r"\s+").to_numpy()
    pixels, onehot = values[:, :256], values[:, 256:]
    assert set(np.unique(pixels)) == {0.0, 1.0} and (onehot.sum(axis=1) == 1).all()
    df = pd.DataFrame(pixels.astype(np.int8), columns=pixel_names(16))
    df.insert(0, "digit", onehot.argmax(axis=1))
    return df


def make_splice(raw: Path) -> pd.DataFrame:
    data = pd.read_csv(raw_path(raw, "splice/splice.data"), header=None, skipinitialspace=True, dtype=str)
    seqs = data[2].str.strip()
    assert (seqs.str.len() == 60).all()
    chars = np.array([list(s) for s in seqs])  # 3190 x 60
    positions = [f"{p:+d}" for p in (*range(-30, 0), *range(1, 31))]  # the .names file: -30..-1, +1..+30
    out = {"class": data[0].to_numpy()}
    for i, pos in enumerate(positions):
        for base in "ACGT":
            out[f"pos{pos}={base}"] = (chars[:, i] == base).astype(np.int8)
    return pd.DataFrame(out)


def make_waveform(raw: Path) -> pd.DataFrame:
    data = pd.read_csv(raw_path(raw, "waveform/waveform-+noise.data"), header=None)
    names = [f"wave{i}" for i in range(1, 22)] + [f"noise{i}" for i in range(1, 20)]
    df = pd.DataFrame(data.iloc[:, :40].to_numpy(), columns=names)
    df.insert(0, "class", data[40].astype(int))
    return df


def make_optdigits(raw: Path) -> pd.DataFrame:
    data = pd.concat([pd.read_csv(raw_path(raw, f"optdigits/optdigits.{s}"), header=None) for s in ("tra", "tes")],
                     ignore_index=True)
    df = pd.DataFrame(data.iloc[:, :64].to_numpy(np.int8), columns=pixel_names(8))
    df.insert(0, "digit", data[64].astype(int))
    return df


def mean_std_codes(X: np.ndarray) -> np.ndarray:
    """The paper's encoding (Ahmed et al., footnote 6): per column, 0 below mu - sigma, 1 in [mu - sigma,
    mu + sigma), 2 at or above mu + sigma, with the sample standard deviation (ddof=1, MATLAB's std)."""
    X = X.astype(np.float64)
    mu, sigma = X.mean(axis=0), X.std(axis=0, ddof=1)
    return ((X >= mu - sigma).astype(np.uint8) + (X >= mu + sigma)).astype(np.uint8)


def make_text_mat(raw: Path, rel: str) -> dict[str, np.ndarray]:
    """X (codes), y (labels 1/2) and feature names of a scikit-feature .mat file (X_dis, a copy of X, ignored)."""
    from scipy.io import loadmat

    data = loadmat(raw_path(raw, rel))
    X, y = data["X"], data["Y"].ravel().astype(np.uint8)
    assert X.shape[0] == y.size and set(np.unique(y)) == {1, 2}, rel
    return {"X": mean_std_codes(X), "y": y, "feature_names": np.array([f"w{j + 1}" for j in range(X.shape[1])])}


def write_npz(arrays: dict[str, np.ndarray], path: Path) -> None:
    """Deterministic .npz: numpy's own array format in a deflated zip with a fixed timestamp."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for key, value in arrays.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.ascontiguousarray(value), allow_pickle=False)
            zf.writestr(zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0)), buffer.getvalue(),
                        compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)


NPZ_BUILDERS = {"pcmac": "pcmac/PCMAC.mat", "basehock": "basehock/BASEHOCK.mat"}

BUILDERS = {"mushroom": make_mushroom, "adult": make_adult, "semeion": make_semeion, "splice": make_splice,
            "waveform": make_waveform, "optdigits": make_optdigits}


def main(raw: Path, out: Path) -> None:
    out.mkdir(exist_ok=True)
    total = 0
    for name, build in BUILDERS.items():
        df = build(raw)
        path = out / f"{name}.csv.gz"
        write_csv(df, path, float_format="%.2f" if name == "waveform" else None)
        check = pd.read_csv(path)
        assert check.shape == df.shape and list(check.columns) == list(df.columns), name
        size = path.stat().st_size
        total += size
        digest = hashlib.md5(path.read_bytes()).hexdigest()
        print(f"{path.name:20s} {df.shape[0]:6d} x {df.shape[1] - 1:4d}  {size:9,d} B  md5 {digest}")
    for name, rel in NPZ_BUILDERS.items():
        arrays = make_text_mat(raw, rel)
        path = out / f"{name}.npz"
        write_npz(arrays, path)
        with np.load(path, allow_pickle=False) as check:
            assert all(np.array_equal(check[k], v) for k, v in arrays.items()), name
        size = path.stat().st_size
        total += size
        digest = hashlib.md5(path.read_bytes()).hexdigest()
        print(f"{path.name:20s} {arrays['X'].shape[0]:6d} x {arrays['X'].shape[1]:4d}  {size:9,d} B  md5 {digest}")
    print(f"{'total':20s} {'':15s} {total:9,d} B")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(Path(args[0]) if args else Path("/work/shared/datasets"),
         Path(args[1]) if len(args) > 1 else REPO / "sample_data")
