#include "papshim/plan.hpp"

#include <algorithm>
#include <cstdlib>

namespace papshim::plan {

Plan plan_from(std::span<const Contribution> vector, std::uint64_t seq) {
    Plan plan;
    plan.seq = seq + 1;
    if (vector.empty()) return plan;
    const std::uint64_t signature = vector.front().next_signature;
    std::int64_t earliest = INT64_MAX, latest = INT64_MIN;
    for (const Contribution& c : vector) {
        if (c.next_arrival_ns == kNoPrediction || c.next_signature == 0 || c.next_signature != signature) return plan;
        earliest = std::min(earliest, c.next_arrival_ns);
        latest = std::max(latest, c.next_arrival_ns);
    }
    plan.signature = signature;
    plan.omega_ns = latest - earliest;
    plan.arrival_ns.reserve(vector.size());
    for (std::size_t i = 0; i < vector.size(); ++i) {
        plan.arrival_ns.push_back(vector[i].next_arrival_ns - earliest);
        if (plan.last < 0 && vector[i].next_arrival_ns == latest) plan.last = int(i);
    }
    return plan;
}

Quality assess(const Plan& plan, std::span<const Contribution> vector, std::int64_t tau_ns) {
    Quality q;
    if (!plan.usable() || plan.arrival_ns.size() != vector.size() || vector.empty()) return q;
    std::int64_t earliest = INT64_MAX, latest = INT64_MIN;
    for (const Contribution& c : vector) {
        earliest = std::min(earliest, c.arrival_ns);
        latest = std::max(latest, c.arrival_ns);
    }
    q.actual_omega_ns = latest - earliest;
    std::int64_t worst = 0;
    for (std::size_t i = 0; i < vector.size(); ++i) {
        const std::int64_t actual = vector[i].arrival_ns - earliest;
        worst = std::max<std::int64_t>(worst, std::llabs(plan.arrival_ns[i] - actual));
        if (int(i) == plan.last && vector[i].arrival_ns == latest) q.last_right = true;
    }
    q.relative_error =
        double(worst) / double(std::max<std::int64_t>({q.actual_omega_ns, plan.omega_ns, tau_ns, 1}));
    return q;
}

void Guard::observe(std::span<const Contribution> vector, std::int64_t tau_ns) {
    if (vector.empty()) return;
    const auto earlier = [](const Contribution& a, const Contribution& b) { return a.arrival_ns < b.arrival_ns; };
    const auto low = std::min_element(vector.begin(), vector.end(), earlier);
    // max_element gives the first of equals: the lowest rank, as Plan::last.
    const auto high = std::max_element(vector.begin(), vector.end(), earlier);
    imbalanced_.push_back(high->arrival_ns - low->arrival_ns >= kImbalanceFactor * std::max<std::int64_t>(tau_ns, 1));
    if (imbalanced_.size() > kWindow) imbalanced_.pop_front();
    last_arrivers_.push_back(int(high - vector.begin()));
    if (last_arrivers_.size() > kLastWindow) last_arrivers_.pop_front();
}

void Guard::record(const Quality& q) {
    recent_.push_back(q);
    if (recent_.size() > kWindow) recent_.pop_front();
    ++assessed_;
    if (q.relative_error <= kMaxError) ++good_;
    if (q.last_right) ++last_right_;
}

bool Guard::trusted() const {
    if (recent_.size() < kWindow) return false;
    return std::all_of(recent_.begin(), recent_.end(), [](const Quality& q) { return q.relative_error <= kMaxError; });
}

bool Guard::last_established(int rank, int ranks) const {
    if (last_arrivers_.size() < kLastWindow) return false;
    const auto hits = std::count(last_arrivers_.begin(), last_arrivers_.end(), rank);
    return hits >= (ranks > 2 ? kLastWindow - 2 : kLastWindow);
}

bool Guard::imbalanced() const {
    return std::count(imbalanced_.begin(), imbalanced_.end(), true) * 2 > std::ptrdiff_t(imbalanced_.size());
}

bool Guard::maybe_imbalanced() const {
    return std::find(imbalanced_.begin(), imbalanced_.end(), true) != imbalanced_.end();
}

}  // namespace papshim::plan
