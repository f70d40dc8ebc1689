// The pure Allreduce schedule builders and their balanced-arrival cost models (bytes: the
// whole vector). Every builder accepts any p >= 1.
#pragma once

#include "papshim/algorithms.hpp"
#include "papshim/schedule.hpp"

namespace papshim::allreduce {

schedule::Schedule build_recursive_doubling(const schedule::BuildInput& input);
schedule::Schedule build_ring(const schedule::BuildInput& input);
schedule::Schedule build_rabenseifner(const schedule::BuildInput& input);

double recursive_doubling_cost(int ranks, double bytes, const LinkModel& link);
double ring_cost(int ranks, double bytes, const LinkModel& link);
double rabenseifner_cost(int ranks, double bytes, const LinkModel& link);

}  // namespace papshim::allreduce
