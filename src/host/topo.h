/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topo.h: the machine's topology (host/topology.h) and the placement planner (host/plan.h), in
 * one include. */
#ifndef KB_TOPO_H
#define KB_TOPO_H

#include "host/plan.h"
#include "host/topology.h"

#endif
