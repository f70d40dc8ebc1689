// A minimal streaming JSON writer: enough for papshim-bench's results file, with commas
// and indentation handled in one place.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace papshim::bench {

class JsonWriter {
public:
    void begin_object() { open('{'); }
    void end_object() { close('}'); }
    void begin_array() { open('['); }
    void end_array() { close(']'); }

    // Starts the member `name` of the current object; the next value or container is its value.
    JsonWriter& key(std::string_view name) {
        separate();
        append_string(name);
        text_ += ": ";
        after_key_ = true;
        return *this;
    }

    void value(std::string_view text) {
        separate();
        append_string(text);
    }
    void value(const char* text) { value(std::string_view(text)); }
    void value(bool flag) {
        separate();
        text_ += flag ? "true" : "false";
    }
    void value(double number) {
        separate();
        // JSON has no inf or nan.
        text_ += std::isfinite(number) ? fmt::format("{}", number) : std::string("null");
    }
    void value(std::int64_t number) {
        separate();
        text_ += fmt::format("{}", number);
    }
    void value(int number) { value(static_cast<std::int64_t>(number)); }
    void value(std::size_t number) { value(static_cast<std::int64_t>(number)); }

    // Numbers on one line: raw series stay readable.
    void array(std::span<const double> numbers) {
        separate();
        text_ += '[';
        for (std::size_t i = 0; i < numbers.size(); ++i) {
            if (i) text_ += ", ";
            text_ += std::isfinite(numbers[i]) ? fmt::format("{}", numbers[i]) : "null";
        }
        text_ += ']';
    }

    template <typename T>
    void member(std::string_view name, const T& content) {
        key(name);
        if constexpr (std::is_convertible_v<const T&, std::span<const double>>)
            array(content);
        else
            value(content);
    }

    // Scoped containers: `fill` writes the content, the writer closes it.
    template <typename Fill>
    void object(Fill&& fill) {
        begin_object();
        fill();
        end_object();
    }
    template <typename Fill>
    void object_member(std::string_view name, Fill&& fill) {
        key(name);
        object(fill);
    }
    template <typename Fill>
    void array_member(std::string_view name, Fill&& fill) {
        key(name).begin_array();
        fill();
        end_array();
    }

    const std::string& text() const { return text_; }

private:
    void separate() {
        if (after_key_) {
            after_key_ = false;
            return;
        }
        if (!first_in_container_.empty()) {
            if (!first_in_container_.back()) text_ += ',';
            first_in_container_.back() = false;
            newline();
        }
    }
    void open(char bracket) {
        separate();
        text_ += bracket;
        first_in_container_.push_back(true);
    }
    void close(char bracket) {
        const bool empty = first_in_container_.back();
        first_in_container_.pop_back();
        if (!empty) newline();
        text_ += bracket;
        if (first_in_container_.empty()) text_ += '\n';
    }
    void newline() {
        text_ += '\n';
        text_.append(2 * first_in_container_.size(), ' ');
    }
    void append_string(std::string_view raw) {
        text_ += '"';
        for (const char c : raw) {
            switch (c) {
                case '"':
                    text_ += "\\\"";
                    break;
                case '\\':
                    text_ += "\\\\";
                    break;
                case '\n':
                    text_ += "\\n";
                    break;
                case '\t':
                    text_ += "\\t";
                    break;
                case '\r':
                    text_ += "\\r";
                    break;
                default:
                    if (static_cast<unsigned char>(c) < 0x20)
                        text_ += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
                    else
                        text_ += c;
            }
        }
        text_ += '"';
    }

    std::string text_;
    std::vector<bool> first_in_container_;
    bool after_key_ = false;
};

}  // namespace papshim::bench
