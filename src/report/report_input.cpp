// Readers for the PAP report: streaming RFC 4180 CSV (calls.csv) and key=value (meta.txt).
// Every error names the file and the line, so a broken trace is easy to find.
#include "papshim/report.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <fstream>
#include <stdexcept>
#include <string_view>

namespace papshim::report {
namespace {

[[noreturn]] void fail_at(const std::string& name, std::size_t line, const std::string& what) {
    throw std::runtime_error(fmt::format("{}:{}: {}", name, line, what));
}

std::string_view trim(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) return {};
    const auto last = text.find_last_not_of(" \t\r");
    return text.substr(first, last - first + 1);
}

template <typename Number>
bool parse_number(std::string_view text, Number& value) {
    text = trim(text);
    if (!text.empty() && text.front() == '+') text.remove_prefix(1);
    const auto* end = text.data() + text.size();
    const auto [ptr, error] = std::from_chars(text.data(), end, value);
    return !text.empty() && error == std::errc{} && ptr == end;
}

// The calls.csv columns the report reads, in CallRow order; those after exit_s are optional.
constexpr std::array<std::string_view, 16> column_names = {
    "rank", "world_rank", "comm", "comm_size", "seq", "collective", "bytes",
    "root", "arrival_s", "exit_s", "callsite", "function", "location",
    "algorithm", "predicted_arrival_s", "plan"};
constexpr std::size_t required_columns = 10;
constexpr std::size_t absent = static_cast<std::size_t>(-1);

}  // namespace

// ---- CSV -----------------------------------------------------------------------------------

CsvReader::CsvReader(std::istream& in, std::string name) : in_(in), name_(std::move(name)) {}

bool CsvReader::next(std::vector<std::string>& fields) {
    fields.clear();
    std::streambuf& buf = *in_.rdbuf();
    constexpr int eof = std::char_traits<char>::eof();
    // Blank lines carry no record.
    for (int c = buf.sgetc(); c == '\n' || c == '\r'; c = buf.sgetc()) {
        if (buf.sbumpc() == '\n') ++current_line_;
    }
    if (buf.sgetc() == eof) return false;
    record_line_ = current_line_;

    enum class State { field_start, unquoted, quoted, quote_in_quoted };
    State state = State::field_start;
    std::string field;
    const auto end_field = [&] {
        fields.push_back(std::move(field));
        field.clear();
        state = State::field_start;
    };
    for (;;) {
        const int c = buf.sbumpc();
        if (c == eof) {
            if (state == State::quoted) fail_at(name_, record_line_, "unterminated quoted field");
            end_field();
            return true;
        }
        const char ch = static_cast<char>(c);
        const bool line_end = ch == '\n' || ch == '\r';
        if (line_end && state != State::quoted) {
            if (ch == '\r' && buf.sgetc() == '\n') buf.sbumpc();
            ++current_line_;
            end_field();
            return true;
        }
        switch (state) {
        case State::field_start:
            if (ch == '"') {
                state = State::quoted;
            } else if (ch == ',') {
                end_field();
            } else {
                field += ch;
                state = State::unquoted;
            }
            break;
        case State::unquoted:
            if (ch == ',') {
                end_field();
            } else if (ch == '"') {
                fail_at(name_, current_line_, "quote inside an unquoted field");
            } else {
                field += ch;
            }
            break;
        case State::quoted:
            if (ch == '"') {
                state = State::quote_in_quoted;
            } else {
                if (ch == '\n') ++current_line_;
                field += ch;
            }
            break;
        case State::quote_in_quoted:  // either an escaped quote or the closing one
            if (ch == '"') {
                field += '"';
                state = State::quoted;
            } else if (ch == ',') {
                end_field();
            } else {
                fail_at(name_, current_line_, "text after a closing quote");
            }
            break;
        }
    }
}

// ---- calls.csv -----------------------------------------------------------------------------

CallsReader::CallsReader(std::istream& in, std::string name) : csv_(in, std::move(name)) {
    if (!csv_.next(fields_)) fail_at(csv_.name(), 1, "empty file, expected a header row");
    header_columns_ = fields_.size();
    column_.assign(column_names.size(), absent);
    for (std::size_t i = 0; i < fields_.size(); ++i) {
        const auto header = trim(fields_[i]);
        for (std::size_t k = 0; k < column_names.size(); ++k) {
            if (header == column_names[k] && column_[k] == absent) column_[k] = i;
        }
    }
    for (std::size_t k = 0; k < required_columns; ++k) {
        if (column_[k] == absent) {
            fail_at(csv_.name(), csv_.line(),
                    fmt::format("header has no column '{}'", column_names[k]));
        }
    }
}

bool CallsReader::next(CallRow& row) {
    if (!csv_.next(fields_)) return false;
    if (fields_.size() != header_columns_) {
        fail_at(csv_.name(), csv_.line(),
                fmt::format("expected {} fields as in the header, found {}", header_columns_,
                            fields_.size()));
    }
    const auto text = [&](std::size_t k) -> std::string {
        return column_[k] == absent ? std::string{} : fields_[column_[k]];
    };
    const auto number = [&](std::size_t k, auto& value) {
        if (!parse_number(fields_[column_[k]], value)) {
            fail_at(csv_.name(), csv_.line(),
                    fmt::format("column '{}': '{}' is not a valid number", column_names[k],
                                fields_[column_[k]]));
        }
    };
    number(0, row.rank);
    number(1, row.world_rank);
    row.comm = text(2);
    number(3, row.comm_size);
    number(4, row.seq);
    row.collective = std::string(trim(text(5)));
    number(6, row.bytes);
    number(7, row.root);
    number(8, row.arrival_s);
    number(9, row.exit_s);
    row.callsite = text(10);
    row.function = text(11);
    row.location = text(12);
    row.algorithm = std::string(trim(text(13)));
    row.predicted_arrival_s.reset();
    if (const std::string predicted = text(14); !trim(predicted).empty()) {
        double value = 0;
        if (!parse_number(predicted, value) || !trace::plausible_seconds(value)) {
            fail_at(csv_.name(), csv_.line(),
                    fmt::format("column 'predicted_arrival_s': '{}' is not a time of the job", predicted));
        }
        row.predicted_arrival_s = value;
    }
    row.plan = std::string(trim(text(15)));
    if (!trace::parse_plan_use(row.plan)) {
        fail_at(csv_.name(), csv_.line(),
                fmt::format("column 'plan': '{}' is not hit, miss, guarded or empty", row.plan));
    }
    // The merge's rule (trace::plausible_call_times): a row no run writes makes every time wrong.
    if (!trace::plausible_seconds(row.arrival_s) || !trace::plausible_seconds(row.exit_s)) {
        fail_at(csv_.name(), csv_.line(),
                fmt::format("arrival_s and exit_s must be finite and within {:g} s of the job's start, found {} and {}",
                            trace::implausible_seconds, row.arrival_s, row.exit_s));
    }
    if (!trace::plausible_call_times(row.arrival_s, row.exit_s)) {
        fail_at(csv_.name(), csv_.line(),
                fmt::format("exit_s {} is more than {:g} s before arrival_s {}", row.exit_s,
                            trace::exit_before_arrival_tolerance_s, row.arrival_s));
    }
    if (row.comm.empty()) fail_at(csv_.name(), csv_.line(), "column 'comm' is empty");
    if (row.collective.empty()) fail_at(csv_.name(), csv_.line(), "column 'collective' is empty");
    if (row.comm_size < 1 || row.rank < 0 || row.rank >= row.comm_size) {
        fail_at(csv_.name(), csv_.line(),
                fmt::format("rank {} is not in a communicator of size {}", row.rank,
                            row.comm_size));
    }
    if (row.world_rank < 0) {
        fail_at(csv_.name(), csv_.line(), fmt::format("world_rank {} is negative", row.world_rank));
    }
    return true;
}

// ---- meta.txt ------------------------------------------------------------------------------

std::string RunMeta::get(const std::string& key, const std::string& fallback) const {
    const auto found = values.find(key);
    return found == values.end() ? fallback : found->second;
}

std::optional<int> RunMeta::world_size() const {
    const std::string size = get("world_size");
    int value = 0;
    const auto [end, ec] = std::from_chars(size.data(), size.data() + size.size(), value);
    if (size.empty() || ec != std::errc{} || end != size.data() + size.size() || value <= 0) return std::nullopt;
    return value;
}

RunMeta parse_meta(std::istream& in, const std::string& name) {
    RunMeta meta;
    std::string text;
    for (std::size_t line = 1; std::getline(in, text); ++line) {
        const std::string_view content = trim(text);
        if (content.empty() || content.front() == '#') continue;
        const auto equals = content.find('=');
        if (equals == std::string_view::npos || trim(content.substr(0, equals)).empty()) {
            fail_at(name, line, fmt::format("expected key=value, found '{}'", content));
        }
        const auto key = std::string(trim(content.substr(0, equals)));
        const auto value = trim(content.substr(equals + 1));
        meta.values[key] = std::string(value);
        const auto number = [&](std::optional<double>& target) {
            double parsed = 0;
            if (!parse_number(value, parsed) || !std::isfinite(parsed) || parsed < 0) {
                fail_at(name, line,
                        fmt::format("{} must be a finite non-negative number, found '{}'", key, value));
            }
            target = parsed;
        };
        if (key == "alpha_s") number(meta.alpha_s);
        if (key == "beta_s_per_byte") number(meta.beta_s_per_byte);
    }
    return meta;
}

predict::Settings predictor_settings(const RunMeta& meta) {
    predict::Settings settings;
    const auto bad = [](const std::string& key, const std::string& value, const char* valid) {
        return std::runtime_error(
            fmt::format("meta.txt: {}={} is not valid ({})", key, value, valid));
    };
    if (const std::string name = meta.get("predictor"); !name.empty()) {
        const auto method = predict::parse_method(name);
        if (!method) throw bad("predictor", name, "ema, sma or last");
        settings.method = *method;
    }
    if (const std::string alpha = meta.get("ema_alpha"); !alpha.empty()) {
        if (!parse_number(alpha, settings.alpha) || !(settings.alpha > 0 && settings.alpha <= 1))
            throw bad("ema_alpha", alpha, "0 < alpha <= 1");
    }
    if (const std::string window = meta.get("sma_window"); !window.empty()) {
        if (!parse_number(window, settings.window) || settings.window < 1 || settings.window > 1024)
            throw bad("sma_window", window, "1..1024");
    }
    return settings;
}

RunMeta read_meta(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error(fmt::format("{}: cannot open for reading", path));
    return parse_meta(in, path);
}

}  // namespace papshim::report
