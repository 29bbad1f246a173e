"""Write tiny audio dataset folders in the layouts MindSpore's audio readers expect (16-bit PCM
WAV files) and record what MindSpore 2.10 reads from them (mindspore_audio.json).

Run from a scratch directory (MindSpore writes stray files to the cwd):
    cd /tmp/x && /tmp/msvenv/bin/python /work/main/tests/dataset/data/make_audio.py
Writing the files needs only NumPy; the MindSpore part runs when mindspore imports.
"""
import json
import os
import wave

import numpy as np

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "audio")


def write_wav(path, seed, n=12, rate=8000, width=2, channels=1):
    rng = np.random.default_rng(seed)
    info = np.iinfo({1: np.uint8, 2: np.int16, 4: np.int32}[width])
    data = rng.integers(info.min, info.max, (n, channels), endpoint=True)
    data = data.astype({1: np.uint8, 2: "<i2", 4: "<i4"}[width])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with wave.open(path, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(data.tobytes())


def write_text(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def write_sph(path, samples, rate):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    head = (f"NIST_1A\n   1024\nsample_count -i {len(samples)}\nsample_rate -i {rate}\n"
            "channel_count -i 1\nsample_n_bytes -i 2\nsample_byte_format -s2 01\n"
            "sample_coding -s3 pcm\nend_head\n").encode()
    with open(path, "wb") as f:
        f.write(head.ljust(1024, b" ") + np.asarray(samples, "<i2").tobytes())


def make_tedlium(root):
    rng = np.random.default_rng(70)
    for usage in ("train", "dev", "test"):
        talk = f"Talk{usage.title()}_2009"
        base = os.path.join(root, "TEDLIUM_release1", usage)
        write_sph(os.path.join(base, "sph", talk + ".sph"),
                  rng.integers(-32768, 32767, 64, endpoint=True), rate=16)
        write_text(os.path.join(base, "stm", talk + ".stm"),
                   f"{talk} 1 {talk} 0.5 1.25 <o,f0,male> hello world {usage}\n"
                   f"{talk} 1 inter_segment_gap 1.25 2.0 <o,,unknown> "
                   f"ignore_time_segment_in_scoring\n"
                   f"{talk} 1 {talk} 2.0 3.5 <o,f0,male> second part\n")
    base = os.path.join(root, "TEDLIUM_release-3", "data")
    write_sph(os.path.join(base, "sph", "T3.sph"), rng.integers(-32768, 32767, 40), rate=8)
    write_text(os.path.join(base, "stm", "T3.stm"), "T3 1 T3 0.0 1.0 <o,f0,female> three words\n")


def make_files():
    yes_no = os.path.join(HERE, "yes_no")
    for k, name in enumerate(["0_1_0_0_1_0_1_1", "1_1_0_0_1_1_0_0", "0_0_0_1_0_0_1_0"]):
        write_wav(os.path.join(yes_no, name + ".wav"), k, n=10 + k)
    speech = os.path.join(HERE, "speech_commands")
    files = ["cat/b433eff_nohash_0.wav", "cat/5a33edf_nohash_1.wav", "dog/b433w2w_nohash_0.wav",
             "dog/c1d39ce_nohash_2.wav", "four/a1b2c3d_nohash_0.wav"]
    for k, f in enumerate(files):
        write_wav(os.path.join(speech, f), 10 + k, rate=16000)
    write_wav(os.path.join(speech, "_background_noise_", "white_noise.wav"), 99)
    write_text(os.path.join(speech, "validation_list.txt"), "dog/b433w2w_nohash_0.wav\n")
    write_text(os.path.join(speech, "testing_list.txt"),
               "cat/5a33edf_nohash_1.wav\nfour/a1b2c3d_nohash_0.wav\n")
    lj = os.path.join(HERE, "LJSpeech-1.1")
    rows = [("LJ001-0001", "Printing, in the only sense", "Printing, in the only sense"),
            ("LJ001-0002", "in being comparatively modern.", "in being comparatively modern."),
            ("LJ001-0003", "For although the Chinese took 1440",
             "For although the Chinese took fourteen forty")]
    write_text(os.path.join(lj, "metadata.csv"), "".join("|".join(r) + "\n" for r in rows))
    for k, r in enumerate(rows):
        write_wav(os.path.join(lj, "wavs", r[0] + ".wav"), 20 + k, rate=22050)
    arctic = os.path.join(HERE, "cmu_arctic")
    for name, seed in (("aew", 30), ("slt", 40)):
        base = os.path.join(arctic, f"cmu_us_{name}_arctic")
        lines = [f'( arctic_a000{k} "Author of the danger trail, {name} {k}." )\n'
                 for k in (1, 2)]
        write_text(os.path.join(base, "etc", "txt.done.data"), "".join(lines))
        for k in (1, 2):
            write_wav(os.path.join(base, "wav", f"arctic_a000{k}.wav"), seed + k, rate=16000)
    libri = os.path.join(HERE, "libri_tts")
    for usage, speaker, chapter, seed in (("dev-clean", "116", "288045", 50),
                                          ("test-clean", "1255", "138279", 60)):
        folder = os.path.join(libri, usage, speaker, chapter)
        trans = []
        for k in range(2):
            utt = f"{speaker}_{chapter}_00000{k}_000000"
            write_wav(os.path.join(folder, utt + ".wav"), seed + k, rate=24000)
            trans.append(f"{utt}\tOriginal text {k}.\tnormalized text {k}\n")
        write_text(os.path.join(folder, f"{speaker}_{chapter}.trans.tsv"), "".join(trans))
    make_tedlium(os.path.join(HERE, "tedlium"))


def main():
    make_files()
    try:
        import mindspore.dataset as ds
    except ImportError:
        return

    def rows(d):
        out = []
        for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1):
            out.append([a.tolist() if a.dtype.kind not in "SU" else str(a) for a in r])
        return out

    def describe(d):
        return {"columns": d.get_col_names(), "size": d.get_dataset_size(), "rows": rows(d),
                "types": [str(t) for t in d.output_types()], "shapes": d.output_shapes()}

    out = {"YesNoDataset": describe(ds.YesNoDataset(os.path.join(HERE, "yes_no"),
                                                    shuffle=False))}
    for usage in ("all", "train", "valid", "test"):
        out[f"SpeechCommandsDataset_{usage}"] = describe(ds.SpeechCommandsDataset(
            os.path.join(HERE, "speech_commands"), usage=usage, shuffle=False))
    out["LJSpeechDataset"] = describe(ds.LJSpeechDataset(os.path.join(HERE, "LJSpeech-1.1"),
                                                         shuffle=False))
    for name in (None, "slt"):
        out[f"CMUArcticDataset_{name}"] = describe(ds.CMUArcticDataset(
            os.path.join(HERE, "cmu_arctic"), name=name, shuffle=False))
    for usage in ("all", "dev-clean", "test-clean"):
        out[f"LibriTTSDataset_{usage}"] = describe(ds.LibriTTSDataset(
            os.path.join(HERE, "libri_tts"), usage=usage, shuffle=False))
    ted = os.path.join(HERE, "tedlium")
    for usage in ("all", "dev"):
        out[f"TedliumDataset_release1_{usage}"] = describe(ds.TedliumDataset(
            os.path.join(ted, "TEDLIUM_release1"), "release1", usage=usage, shuffle=False))
    out["TedliumDataset_release3_all"] = describe(ds.TedliumDataset(
        os.path.join(ted, "TEDLIUM_release-3"), "release3", shuffle=False))
    with open(os.path.join(HERE, "mindspore_audio.json"), "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
