"""Records MindSpore 2.10's data-parallel API facts for tests/distributed/test_world_of_one.py:
signatures, parallel-context defaults, error types and messages before init().

Run with MindSpore's Python from a scratch directory (MindSpore writes logs into the cwd):
    cd /tmp/scratch && /tmp/msvenv/bin/python /work/main/tests/distributed/data/make_mindspore_comm.py
"""
import inspect
import json
import os

import mindspore as ms
import mindspore.communication as comm
from mindspore import nn, ops
from mindspore.communication import comm_func

facts = {"signatures": {}, "context": {}, "errors": {}, "constants": {}}
for name in ["AllReduce", "AllGather", "ReduceScatter", "Broadcast", "AlltoAll", "Send",
             "Receive", "Barrier", "Reduce", "CollectiveGather", "CollectiveScatter", "AllGatherV",
             "ReduceScatterV", "AlltoAllV", "AlltoAllVC", "NeighborExchange", "BatchISendIRecv", "NeighborExchangeV2"]:
    facts["signatures"][f"ops.{name}"] = str(inspect.signature(getattr(ops, name).__init__))
for name in comm.__all__:
    obj = getattr(comm, name)
    if callable(obj) and not isinstance(obj, type):
        facts["signatures"][f"communication.{name}"] = str(inspect.signature(obj))
    elif isinstance(obj, str):
        facts["constants"][name] = obj
for name in ["all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor", "broadcast",
             "barrier", "send", "recv", "isend", "irecv", "all_to_all_with_output_shape", "reduce",
             "gather_into_tensor", "scatter_tensor"]:
    facts["signatures"][f"comm_func.{name}"] = str(inspect.signature(getattr(comm_func, name)))
from mindspore.ops import communication as ops_communication  # noqa: E402

for name in ["P2POp", "all_gather", "all_gather_into_tensor", "all_gather_into_tensor_uneven",
             "all_gather_object", "all_reduce", "all_to_all", "all_to_all_single",
             "all_to_all_v_c", "barrier", "batch_isend_irecv", "broadcast",
             "broadcast_object_list", "destroy_process_group", "gather", "gather_into_tensor",
             "gather_object", "get_backend", "get_global_rank", "get_group_rank",
             "get_process_group_ranks", "get_rank", "get_world_size", "init_process_group",
             "irecv", "is_available", "is_initialized", "isend", "new_group", "recv",
             "recv_object_list", "reduce", "reduce_scatter", "reduce_scatter_tensor",
             "reduce_scatter_tensor_uneven", "scatter", "scatter_object_list", "scatter_tensor",
             "send", "send_object_list", "set_comm_ops_inplace"]:
    obj = getattr(ops_communication, name)
    facts["signatures"][f"ops_communication.{name}"] = str(
        inspect.signature(obj.__init__ if isinstance(obj, type) else obj))
facts["signatures"]["nn.DistributedGradReducer"] = str(
    inspect.signature(nn.DistributedGradReducer.__init__))
facts["constants"]["ReduceOp"] = {k: getattr(ops.ReduceOp, k) for k in
                                  ("SUM", "MAX", "MIN", "PROD")}
facts["constants"]["ParallelMode"] = {k: getattr(ms.ParallelMode, k) for k in
                                      ("STAND_ALONE", "DATA_PARALLEL", "HYBRID_PARALLEL",
                                       "SEMI_AUTO_PARALLEL", "AUTO_PARALLEL")}
ms.reset_auto_parallel_context()
for key in ["device_num", "global_rank", "gradients_mean", "gradient_fp32_sync", "parallel_mode",
            "parameter_broadcast", "all_reduce_fusion_config", "loss_repeated_mean",
            "full_batch", "enable_parallel_optimizer", "pipeline_stages"]:
    facts["context"][key] = ms.get_auto_parallel_context(key)


def error_of(fn):
    try:
        fn()
    except Exception as err:  # noqa: BLE001  (recording MindSpore's error type and text)
        return [type(err).__name__, str(err)]
    return None


facts["errors"]["get_context_bogus"] = error_of(lambda: ms.get_auto_parallel_context("bogus"))
facts["errors"]["set_context_bogus"] = error_of(lambda: ms.set_auto_parallel_context(bogus=1))
facts["errors"]["parallel_mode_bad"] = error_of(
    lambda: ms.set_auto_parallel_context(parallel_mode="xx"))
facts["errors"]["gradients_mean_int"] = error_of(
    lambda: ms.set_auto_parallel_context(gradients_mean=1))
facts["errors"]["device_num_zero"] = error_of(lambda: ms.set_auto_parallel_context(device_num=0))
facts["errors"]["create_group_before_init"] = error_of(lambda: comm.create_group("g", [0]))
facts["errors"]["init_int"] = error_of(lambda: comm.init(1))
facts["errors"]["init_nccl"] = error_of(lambda: comm.init("nccl"))
facts["errors"]["init_hccl"] = error_of(lambda: comm.init("hccl"))
facts["errors"]["init_unknown"] = error_of(lambda: comm.init("foo"))
facts["errors"]["set_comm_ops_inplace_int"] = error_of(
    lambda: ops_communication.set_comm_ops_inplace(1))
facts["errors"]["set_comm_ops_inplace_name"] = error_of(
    lambda: ops_communication.set_comm_ops_inplace(True, ["bogus"]))
facts["errors"]["p2pop_bad_op"] = error_of(
    lambda: ops_communication.P2POp("send", ms.Tensor([1.0]), 0))
facts["errors"]["p2pop_tag"] = error_of(
    lambda: ops_communication.P2POp("isend", ms.Tensor([1.0]), 0, tag=1))
facts["errors"]["new_group_tuple"] = error_of(lambda: ops_communication.new_group((0, 1)))
facts["errors"]["init_process_group_nccl"] = error_of(
    lambda: ops_communication.init_process_group("nccl"))
facts["ops_communication_before_init"] = [ops_communication.is_available(),
                                          ops_communication.is_initialized(),
                                          ops_communication.get_world_size(),
                                          ops_communication.new_group(),
                                          ops_communication.get_backend()]
facts["before_init"] = [comm.get_rank(), comm.get_group_size(), comm.get_local_rank(),
                        comm.get_local_rank_size()]
facts["global_comm_before_init"] = [comm.GlobalComm.BACKEND, comm.GlobalComm.WORLD_COMM_GROUP,
                                    comm.GlobalComm.INITED]
ms.set_auto_parallel_context(parallel_mode="data_parallel", gradients_mean=True)
net = nn.Dense(2, 2)
reducer = nn.DistributedGradReducer(net.trainable_params())
facts["reducer_mean_from_context"] = bool(reducer.mean)
ms.reset_auto_parallel_context()
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mindspore_comm.json")
with open(out, "w") as f:
    json.dump(facts, f, indent=1, sort_keys=True)
print("wrote", out)
