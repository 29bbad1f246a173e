"""MindSpore's `mindspore.communication` management API on minispore's process world.

Under an MPI launcher (`mpirun`, `python -m minispore.run`) `init()` opens the MPI world; in a
plain process it opens a world of one, so a data-parallel script also runs on one process.
"""
import os

from . import _backend
from ._backend import STATE

__all__ = ["HCCL_WORLD_COMM_GROUP", "MCCL_WORLD_COMM_GROUP", "NCCL_WORLD_COMM_GROUP", "GlobalComm",
           "create_group", "destroy_group", "get_comm_name", "get_group_rank_from_world_rank",
           "get_group_size", "get_local_rank", "get_local_rank_size", "get_process_group_ranks",
           "get_rank", "get_world_rank_from_group_rank", "init", "release"]

HCCL_WORLD_COMM_GROUP = "hccl_world_group"
NCCL_WORLD_COMM_GROUP = "nccl_world_group"
MCCL_WORLD_COMM_GROUP = "mccl_world_group"
_WORLD_NAMES = (HCCL_WORLD_COMM_GROUP, NCCL_WORLD_COMM_GROUP, MCCL_WORLD_COMM_GROUP)
_NOT_INITED = ("Distributed Communication has not been inited.You can't invoke this interface "
               "yet. Please call `init()` method first.")


class GlobalComm:
    """The communication state MindSpore scripts read: `BACKEND`, `WORLD_COMM_GROUP`, `INITED`."""
    BACKEND = "hccl"
    WORLD_COMM_GROUP = HCCL_WORLD_COMM_GROUP
    INITED = False
    CHECK_ENVS = True


def _check_group_name(group, owner):
    if not isinstance(group, str):
        raise TypeError(f"For '{owner}', the argument 'group' must be type of string, but got "
                        f"'group' type : {type(group)}.")


def init(backend_name=None):
    """Open the communication world: the MPI world under an MPI launcher, else a world of one.

    Args:
        backend_name (str): None or 'mccl' (CPU's backend); 'hccl' and 'nccl' are the Ascend and
            GPU backends, refused on CPU as MindSpore does.

    Raises:
        TypeError: `backend_name` not a string.
        RuntimeError: an unknown or non-CPU backend name.
        ImportError: launched under MPI without mpi4py installed.
    """
    if backend_name is not None:
        if not isinstance(backend_name, str):
            raise TypeError(f"For 'init', the argument 'backend_name' must be a string, but got "
                            f"the type : {type(backend_name)}")
        if backend_name not in ("hccl", "nccl", "mccl"):
            raise RuntimeError(f"For 'init', the argument 'backend_name' must be one of 'hccl', "
                               f"'nccl' and 'mccl', but got 'backend_name' : {backend_name}")
        if backend_name != "mccl":
            raise RuntimeError(f"For 'init', the argument 'backend_name' should be 'mccl' to init "
                               f"'CPU', but got '{backend_name}'.")
    _backend.start()
    GlobalComm.BACKEND = "mccl"
    GlobalComm.WORLD_COMM_GROUP = MCCL_WORLD_COMM_GROUP
    GlobalComm.INITED = True


def release():
    """Close the communication world and free every group."""
    _backend.stop()
    GlobalComm.INITED = False


def group_of(group, owner):
    """The backend group named `group` (a world name or a created group). RuntimeError before
    `init()`, or when this rank is not a member."""
    _check_group_name(group, owner)
    if not STATE.inited:
        raise RuntimeError(_NOT_INITED)
    if group in _WORLD_NAMES or group == "world":
        return STATE.world
    found = STATE.groups.get(group)
    if found is None:
        raise RuntimeError(f"For '{owner}', the group '{group}' does not exist: create it with "
                           f"create_group first")
    if found.rank is None:
        raise RuntimeError(f"For '{owner}', rank {STATE.world_rank} is not a member of group "
                           f"'{group}' (ranks {found.world_ranks})")
    return found


def _env_or_world(owner, group, env_var, default, inited_value):
    _check_group_name(group, owner)
    if not STATE.inited:
        found = _backend.launcher_world()
        return int(os.environ.get(env_var, default)) if found is None else inited_value(found)
    return None


def get_rank(group=GlobalComm.WORLD_COMM_GROUP):
    """This process's rank in `group` (before `init()`: from the launcher or `RANK_ID`, else 0)."""
    early = _env_or_world("get_rank", group, "RANK_ID", 0, lambda w: w[0])
    return early if early is not None else group_of(group, "get_rank").rank


def get_group_size(group=GlobalComm.WORLD_COMM_GROUP):
    """The number of ranks in `group` (before `init()`: from the launcher or `RANK_SIZE`, else
    1)."""
    early = _env_or_world("get_group_size", group, "RANK_SIZE", 1, lambda w: w[1])
    return early if early is not None else group_of(group, "get_group_size").size


def get_local_rank(group=GlobalComm.WORLD_COMM_GROUP):
    """This process's rank among the ranks on its machine."""
    early = _env_or_world("get_local_rank", group, "LOCAL_RANK", 0, lambda w: w[2])
    if early is not None:
        return early
    group_of(group, "get_local_rank")
    return STATE.local_rank


def get_local_rank_size(group=GlobalComm.WORLD_COMM_GROUP):
    """The number of ranks on this process's machine."""
    early = _env_or_world("get_local_rank_size", group, "LOCAL_RANK_SIZE", 1, lambda w: w[3])
    if early is not None:
        return early
    group_of(group, "get_local_rank_size")
    return STATE.local_size


def _check_rank_ids(rank_ids, owner):
    if not isinstance(rank_ids, list):
        raise TypeError(f"For '{owner}', the argument 'rank_ids' must be a list, but got "
                        f"{type(rank_ids).__name__}")
    if not rank_ids or any(not isinstance(r, int) or isinstance(r, bool) for r in rank_ids):
        raise ValueError(f"For '{owner}', 'rank_ids' must be a non-empty list of ints, but got "
                         f"{rank_ids}")
    if len(set(rank_ids)) != len(rank_ids):
        raise ValueError(f"For '{owner}', 'rank_ids' has repeated ranks: {rank_ids}")
    if any(not 0 <= r < STATE.world.size for r in rank_ids):
        raise ValueError(f"For '{owner}', every rank in 'rank_ids' must be in [0, "
                         f"{STATE.world.size}), but got {rank_ids}")


def create_group(group, rank_ids, options=None):
    """Create the communication group `group` of the world ranks `rank_ids` (sorted, as
    MindSpore orders them). Every world rank must call it (non-members record the name).

    Raises:
        TypeError: `group` not a string, `rank_ids` not a list.
        ValueError: a world group name, an existing name, or bad ranks.
        RuntimeError: before `init()`.
    """
    _check_group_name(group, "create_group")
    if not STATE.inited:
        raise RuntimeError(_NOT_INITED)
    if group in _WORLD_NAMES:
        raise ValueError(f"For 'create_group', the group name can not be the world group "
                         f"'{group}'")
    if group in STATE.groups:
        raise ValueError(f"For 'create_group', the group '{group}' already exists")
    _check_rank_ids(rank_ids, "create_group")
    _backend.new_group(group, sorted(rank_ids))


def destroy_group(group):
    """Free the group `group` created by `create_group`."""
    _check_group_name(group, "destroy_group")
    if not STATE.inited:
        raise RuntimeError(_NOT_INITED)
    if group in _WORLD_NAMES:
        raise ValueError(f"For 'destroy_group', the world group '{group}' can not be destroyed")
    if group not in STATE.groups:
        raise ValueError(f"For 'destroy_group', the group '{group}' does not exist")
    _backend.free_group(group)


def _known_group(group, owner):
    _check_group_name(group, owner)
    if not STATE.inited:
        raise RuntimeError(_NOT_INITED)
    if group in _WORLD_NAMES:
        return STATE.world
    if group not in STATE.groups:
        raise ValueError(f"For '{owner}', the group '{group}' does not exist")
    return STATE.groups[group]


def get_world_rank_from_group_rank(group, group_rank_id):
    """The world rank of the rank numbered `group_rank_id` in `group`."""
    found = _known_group(group, "get_world_rank_from_group_rank")
    if not isinstance(group_rank_id, int) or not 0 <= group_rank_id < found.size:
        raise ValueError(f"For 'get_world_rank_from_group_rank', 'group_rank_id' must be an int "
                         f"in [0, {found.size}), but got {group_rank_id!r}")
    return found.world_ranks[group_rank_id]


def get_group_rank_from_world_rank(world_rank_id, group):
    """The rank in `group` of world rank `world_rank_id`."""
    found = _known_group(group, "get_group_rank_from_world_rank")
    if world_rank_id not in found.world_ranks:
        raise ValueError(f"For 'get_group_rank_from_world_rank', world rank {world_rank_id!r} is "
                         f"not in group '{group}' (ranks {found.world_ranks})")
    return found.world_ranks.index(world_rank_id)


def get_process_group_ranks(group=GlobalComm.WORLD_COMM_GROUP):
    """The world ranks of `group`'s members, in group-rank order."""
    return list(_known_group(group, "get_process_group_ranks").world_ranks)


def get_comm_name(group=GlobalComm.WORLD_COMM_GROUP):
    """The backend's name of `group`'s communicator."""
    found = _known_group(group, "get_comm_name")
    return f"mpi_{group}_{'_'.join(map(str, found.world_ranks))}"
