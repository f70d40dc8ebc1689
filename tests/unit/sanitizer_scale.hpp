// How much of the exhaustive schedule checks a build runs. CI runs the unit tests in full in
// the normal builds and again under AddressSanitizer and ThreadSanitizer, where the same
// checks run 20-50x slower. What a sanitizer looks for (races, bad memory, undefined
// behaviour) does not need the thousand-rank communicators or the thousands of random
// patterns, so sanitizer builds take every 16th random sample and stop at 129 ranks.
#pragma once

namespace papshim::test {

#ifdef PAPSHIM_SANITIZED
inline constexpr bool under_sanitizer = true;
#else
inline constexpr bool under_sanitizer = false;
#endif

// Loop step over random samples: `for (int t = 0; t < n; t += sample_stride)`.
inline constexpr int sample_stride = under_sanitizer ? 16 : 1;

// Whether a communicator size is left to the normal builds.
constexpr bool left_to_normal_builds(int ranks) { return under_sanitizer && ranks > 129; }

}  // namespace papshim::test
