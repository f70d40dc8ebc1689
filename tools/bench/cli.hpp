// Command-line conventions shared by papshim's tools (papshim-bench, papshim-sim), on CLI11:
// --help starts with the usage line, a bad flag is one line naming the flag, the last of a
// repeated flag wins, and values are parsed by the tools' own parsers, whose
// std::invalid_argument messages CLI11 then prefixes with the flag.
#pragma once

#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace papshim::cli {

// Usage first (CLI11 puts the description first), no "[OPTIONS]" badge of its own.
class HelpFormatter : public CLI::Formatter {
public:
    HelpFormatter(std::string usage, std::size_t width) : usage_(std::move(usage)) {
        column_width(width);
    }

    std::string make_help(const CLI::App* app, std::string, CLI::AppFormatMode mode) const override {
        return "usage: " + usage_ + "\n\n" + make_description(app) + make_groups(app, mode) + "\n" +
               make_footer(app);
    }

private:
    std::string usage_;
};

// An App with those conventions; `width`: the column where option descriptions start.
// Unknown arguments are collected (allow_extras) so that the error names them the tools'
// way, by unknown_argument_error().
inline void configure(CLI::App& app, std::string usage, std::string description,
                      std::string footer, std::size_t width) {
    app.description(std::move(description));
    app.footer(std::move(footer));
    app.formatter(std::make_shared<HelpFormatter>(std::move(usage), width));
    app.set_help_flag("-h,--help", "this text");
    app.allow_extras();
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

// The first argument CLI11 did not recognise, as one line; empty when there was none.
inline std::string unknown_argument_error(const CLI::App& app) {
    const std::vector<std::string> rest = app.remaining();
    return rest.empty() ? std::string() : "unknown argument '" + rest.front() + "'";
}

// Parses argv into the options bound to `app`. Returns an empty string on success, otherwise
// the error as one line without the tool's name; `help` gets the help text if asked for.
inline std::string parse(CLI::App& app, int argc, char** argv, std::string& help) {
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        help = app.help();
        return {};
    } catch (const CLI::ArgumentMismatch& error) {
        // CLI11 says "--flag: 1 required TEXT missing" for a flag without its value.
        const std::string what = error.what();
        if (what.ends_with(" missing")) return what.substr(0, what.find(':')) + ": needs a value";
        return what;
    } catch (const CLI::ParseError& error) {
        return error.what();
    }
    return unknown_argument_error(app);
}

// An option whose value `parse(text)` turns into `target`; parse throws
// std::invalid_argument with a message that reads well after "--flag: ".
template <typename T, typename Parse>
CLI::Option* add_parsed(CLI::App& app, const std::string& flag, T& target, Parse parse,
                        const std::string& help, const std::string& value_name) {
    CLI::Option* option = app.add_option_function<std::string>(
        flag,
        [&target, parse, flag](const std::string& text) {
            try {
                target = parse(text);
            } catch (const std::invalid_argument& error) {
                throw CLI::ValidationError(flag, error.what());
            }
        },
        help);
    option->option_text(value_name);
    return option;
}

// A parser for values that must not be empty: "--json=" is a slip, not "no file".
inline auto non_empty(std::string what) {
    return [what](const std::string& text) {
        if (text.empty()) throw std::invalid_argument("needs " + what);
        return text;
    };
}

// Whole numbers in [minimum, maximum], with a message that says what was expected.
template <typename Integer>
Integer parse_integer(const std::string& text, Integer minimum,
                      Integer maximum = std::numeric_limits<Integer>::max()) {
    const std::string expected =
        maximum == std::numeric_limits<Integer>::max()
            ? "an integer >= " + std::to_string(minimum)
            : "an integer from " + std::to_string(minimum) + " to " + std::to_string(maximum);
    Integer value{};
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    if (error != std::errc{} || stop != end || value < minimum || value > maximum)
        throw std::invalid_argument("expected " + expected + ", got '" + text + "'");
    return value;
}

}  // namespace papshim::cli
