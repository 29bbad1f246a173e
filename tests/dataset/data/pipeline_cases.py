"""The pipeline cases that run on MindSpore 2.10 (make_mindspore_pipeline.py, which records the
results) and on minispore (tests/dataset/test_pipeline_extra.py, which compares): one list, built
for whichever `dataset` module is given."""
import numpy as np

LENGTHS = [1, 3, 2, 5, 4, 2, 6]


def gen():
    for i, n in enumerate(LENGTHS):
        yield np.arange(n, dtype=np.int32), np.full((i % 2 + 1, 2), i, np.float32)


def rows(d):
    return [[a.tolist() for a in r] for r in d.create_tuple_iterator(output_numpy=True,
                                                                     num_epochs=1)]


def chain(parent, child):
    parent.add_child(child)
    return parent


def cases(ds):
    """name -> a function making the dataset, with `ds` MindSpore's or minispore's `dataset`."""
    def source():
        return ds.GeneratorDataset(gen, ["x", "y"], shuffle=False)

    def offset_sampler():
        s = ds.DistributedSampler(2, 0, shuffle=False)
        s.set_offset(1)
        return s

    return {
        "padded_all": lambda: source().padded_batch(2, pad_info={}),
        "padded_some": lambda: source().padded_batch(
            2, pad_info={"x": None, "y": ([None, 3], 5)}),
        "padded_cut": lambda: source().padded_batch(
            3, pad_info={"x": ([2], -1), "y": ([2, 2], 0)}),
        "padded_drop": lambda: source().padded_batch(3, True, pad_info={}),
        "bucket_default": lambda: source().bucket_batch_by_length(["x"], [2, 4], [2, 2, 2]),
        "bucket_elf": lambda: source().bucket_batch_by_length(
            ["x", "y"], [3], [2, 2],
            element_length_function=lambda x, y: x.shape[0] + y.shape[0]),
        "bucket_shape": lambda: source().bucket_batch_by_length(
            ["x"], [3, 9], [2, 2, 2], pad_info={"x": ([4], 7)}, pad_to_bucket_boundary=True),
        "bucket_drop": lambda: source().bucket_batch_by_length(
            ["x"], [3], [1, 2], element_length_function=lambda x: x.shape[0],
            drop_remainder=True),
        "padded_dataset": lambda: ds.PaddedDataset(
            [{"image": np.zeros(3, np.uint8), "label": 1},
             {"image": np.ones(3, np.uint8), "label": 2}]),
        "flat_map": lambda: ds.NumpySlicesDataset([[1, 2], [3, 4]], shuffle=False).flat_map(
            lambda x: ds.NumpySlicesDataset(x * 10, shuffle=False)),
        "apply": lambda: ds.NumpySlicesDataset([[1, 2], [3, 4]], shuffle=False).apply(
            lambda d: d.batch(2)),
        "chain_sequential_over_subset": lambda: ds.NumpySlicesDataset(
            list(range(10, 15)), sampler=chain(ds.SequentialSampler(start_index=1,
                                                                    num_samples=3),
                                               ds.SubsetSampler([4, 3, 2, 1, 0]))),
        "chain_subset_over_sequential": lambda: ds.NumpySlicesDataset(
            list(range(10, 15)), sampler=chain(ds.SubsetSampler([0, 2]),
                                               ds.SequentialSampler(start_index=2))),
        "distributed_offset": lambda: ds.NumpySlicesDataset(
            list(range(5)), sampler=offset_sampler()),
    }
