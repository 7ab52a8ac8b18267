// torchless/distributed.h — the umbrella header of training across processes (library tl_distributed, pkg-config
// torchless-distributed, CMake torchless::distributed): init_process_group, ProcessGroup and its collectives over
// Gloo, the TCP store, the launcher behind tl-run and DistributedDataParallel. The runtime does not link it.
#pragma once

#include "distributed/ddp.h"
#include "distributed/distributed.h"
#include "distributed/launch.h"
#include "distributed/process_group.h"
#include "distributed/tcp_store.h"
