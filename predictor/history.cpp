#include "papshim/predictor.hpp"

#include <algorithm>
#include <cmath>

namespace papshim::predict {

const char* method_name(Method method) {
    switch (method) {
        case Method::ema: return "ema";
        case Method::sma: return "sma";
        case Method::last: return "last";
    }
    return "ema";
}

std::optional<Method> parse_method(std::string_view name) {
    for (Method m : {Method::ema, Method::sma, Method::last})
        if (name == method_name(m)) return m;
    return std::nullopt;
}

void Series::add(double sample, const Settings& settings) {
    if (count_ > 0) error_.add(std::abs(sample - value_));
    ++count_;
    switch (settings.method) {
        case Method::ema:
            value_ = count_ == 1 ? sample : settings.alpha * sample + (1 - settings.alpha) * value_;
            break;
        case Method::sma: {
            // The mean of the available samples until the window fills.
            const std::size_t width = std::size_t(std::max(settings.window, 1));
            if (window_.size() < width) {
                window_.push_back(sample);
                sum_ += sample;
            } else {
                sum_ += sample - window_[next_];
                window_[next_] = sample;
                next_ = (next_ + 1) % width;
            }
            value_ = sum_ / double(window_.size());
            break;
        }
        case Method::last:
            value_ = sample;
            break;
    }
}

namespace {

// FNV-1a: identical inputs give identical hashes on every rank.
struct Fnv {
    std::uint64_t h = 1469598103934665603ull;
    void word(std::uint64_t v) { h = (h ^ v) * 1099511628211ull; }
    void mix(std::uint64_t v, int width) {  // byte by byte
        for (int i = 0; i < width; ++i) word((v >> (8 * i)) & 0xff);
    }
    std::uint64_t value() const { return h == 0 ? 1 : h; }
};

}  // namespace

std::uint64_t Signature::hash() const {
    Fnv f;
    f.mix(collective, 1);
    f.mix(std::uint16_t(op), 2);
    f.mix(std::uint32_t(root), 4);
    f.mix(bytes, 8);
    if (blocks != 0) f.mix(blocks, 8);
    return f.value();
}

std::uint64_t block_hash(std::span<const std::uint64_t> block_bytes) {
    // A word at a time (p of them on every followed Allgatherv): equal layouts always hash
    // alike, and the planner compares the layouts themselves before a plan is used.
    Fnv f;
    for (std::uint64_t b : block_bytes) f.word(b);
    return f.value();
}

std::optional<Prediction> CommHistory::enter(const void* site, const Signature& signature, std::uint64_t arrival,
                                             const Settings& settings, bool at_root) {
    std::optional<Prediction> expected = next_;
    RootStream* stream = ranks_ > 0 && signature.root >= 0 ? &stream_for(signature) : nullptr;
    if (stream) site = stream_site(*stream, site, signature.root, at_root);
    if (current_) sites_[current_].successor = site;
    Site& here = sites_[site];
    if (pending_.site == site) {
        const auto miss = [arrival](std::uint64_t predicted) {  // in ticks, exact before the conversion
            return double(arrival >= predicted ? arrival - predicted : predicted - arrival);
        };
        if (pending_.from_exit) here.from_exit_miss.add(miss(*pending_.from_exit));
        if (pending_.from_entry) here.from_entry_miss.add(miss(*pending_.from_entry));
    }
    if (have_exit_ && arrival >= last_exit_) {  // current_*: the previous call's still
        here.compute.add(double(arrival - last_exit_), settings);
        if (current_at_root_) here.compute_after_root.add(double(arrival - last_exit_), settings);
        if (arrival >= current_arrival_) here.between.add(double(arrival - current_arrival_), settings);
    }
    ++calls_;
    here.rotation.add(signature.root, ranks_);
    if (stream) stream->rotation.add(signature.root, ranks_);
    here.signature = signature;
    current_ = site;
    current_arrival_ = arrival;
    current_at_root_ = at_root;
    // This call's exit is not known yet: predict it from the site's usual time inside, in
    // this rank's role (the root's own series once it has two samples).
    const Series& inside = at_root && here.elapsed_root.ready() ? here.elapsed_root : here.elapsed;
    next_ = predict_after(here, arrival, inside);
    return expected;
}

void CommHistory::leave(std::uint64_t exit, const Settings& settings) {
    if (!current_) return;
    Site& here = sites_[current_];
    if (exit >= current_arrival_)
        (current_at_root_ ? here.elapsed_root : here.elapsed).add(double(exit - current_arrival_), settings);
    last_exit_ = exit;
    have_exit_ = true;
    // next_ stays the prediction made at entry: that is the one the exchange carried and the
    // plan used, so it is the one the trace records and the report judges. Refining it here
    // with the real exit would report a different predictor from the one that planned (under
    // barrier-synchronised arrivals, 1-2 tau off where the entry's was within 0.15 tau).
}

std::optional<Prediction> CommHistory::predict_after(const Site& current, std::uint64_t arrival, const Series& inside) {
    pending_ = {};
    if (!current.successor) return std::nullopt;
    const auto it = sites_.find(current.successor);
    if (it == sites_.end()) return std::nullopt;
    const Site& next = it->second;
    pending_.site = current.successor;
    const Series* compute = compute_series(next, current_at_root_);
    if (compute && inside.ready())
        pending_.from_exit = arrival + std::uint64_t(inside.value()) + std::uint64_t(std::max(0.0, compute->value()));
    if (next.between.ready()) pending_.from_entry = arrival + std::uint64_t(std::max(0.0, next.between.value()));
    const bool entry_better = next.from_entry_miss.ready() && next.from_exit_miss.ready() &&
                              next.from_entry_miss.value() < next.from_exit_miss.value();
    const std::optional<std::uint64_t> predicted = entry_better ? pending_.from_entry : pending_.from_exit;
    if (!predicted) return std::nullopt;
    return Prediction{predicted_signature(next), *predicted};
}

const Series* CommHistory::compute_series(const Site& next, bool after_root) {
    const Series& common = next.compute;
    const Series& own = next.compute_after_root;
    if (!common.ready()) return nullptr;
    if (!after_root || !own.ready()) return &common;
    // After a root call, its own series only where it and the time between entries err by
    // less than half the correction it makes. The other ranks predict from the common series,
    // so where the time between calls swings (alike on every rank) more than the correction,
    // the root is best predicted with the same error as theirs: the plans use arrivals
    // relative to each other.
    const double correction = std::abs(own.value() - common.value());
    return std::max(own.error(), next.between.error()) < 0.5 * correction ? &own : &common;
}

void Rotation::add(std::int32_t root, int ranks) {
    if (ranks <= 0 || root < 0) {
        *this = {};
        return;
    }
    root %= ranks;  // an invalid root fails the call; it must not overflow here
    if (last_root >= 0) {
        const std::int32_t moved = (root - last_root + ranks) % ranks;
        repeats = moved == last_step ? std::min(repeats + 1, 1 << 20) : 1;  // capped: a long loop
        last_step = moved;
    }
    last_root = root;
}

namespace {
std::uint64_t stream_key(Signature signature) {
    signature.root = -1;
    return signature.hash();
}
}  // namespace

CommHistory::RootStream& CommHistory::stream_for(const Signature& signature) {
    const std::uint64_t key = stream_key(signature);
    auto it = std::ranges::find(streams_, key, &RootStream::key);
    if (it == streams_.end()) {
        if (streams_.size() < kRootStreams) {
            it = streams_.insert(streams_.end(), RootStream{key, {}, 0});
        } else {  // the stream called least recently makes room
            it = std::ranges::min_element(streams_, {}, &RootStream::last_call);
            *it = RootStream{key, {}, 0};
        }
    }
    it->last_call = calls_;
    return *it;
}

const void* CommHistory::stream_site(RootStream& stream, const void* site, std::int32_t root, bool at_root) const {
    if (!at_root) {
        stream.loop_site = site;
        return site;
    }
    // Only a root that a trusted, moving rotation predicted, and only into a site whose own
    // root moves: a fixed root (step 0) keeps its site even where an earlier loop left a
    // loop_site; sites with fixed roots of their own keep theirs even where their roots
    // interleave into a constant step (two roots p/2 apart, three sites unrolling a rotation).
    const bool predicted = stream.rotation.follows_step(kStreamRepeats) && stream.rotation.last_step != 0 &&
                           stream.rotation.next(ranks_, kStreamRepeats) == root % ranks_;
    if (!predicted || !stream.loop_site || stream.loop_site == site) return site;
    const auto loop = sites_.find(stream.loop_site);
    return loop != sites_.end() && loop->second.rotation.last_step > 0 ? stream.loop_site : site;
}

const CommHistory::RootStream* CommHistory::find_stream(const Signature& signature) const {
    const auto it = std::ranges::find(streams_, stream_key(signature), &RootStream::key);
    return it == streams_.end() ? nullptr : &*it;
}

Signature CommHistory::predicted_signature(const Site& site) const {
    Signature next = site.signature;
    if (ranks_ <= 0 || next.root < 0) return next;
    // The communicator's stream saw every call of this signature, whichever site made it; a
    // site's own roots are the fallback where the stream follows no step (two sites of one
    // signature with roots of their own: the stream's steps alternate).
    const RootStream* stream = find_stream(next);
    next.root = stream && stream->rotation.follows_step(kStreamRepeats) ? stream->rotation.next(ranks_, kStreamRepeats)
                                                                        : site.rotation.next(ranks_, kSiteRepeats);
    return next;
}

}  // namespace papshim::predict
