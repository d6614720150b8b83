// JSON parsed in place with numbers read exactly, by std::from_chars.
//
// Why not RapidJSON's own full-precision number reading: Debian's RapidJSON
// 1.1.0 reads out of bounds, and the server crashed, on a decimal with a few
// hundred zeros ("0." followed by 400 zeros and a digit: found by make fuzz),
// and returns wrong values for others ("0e270" became 4.35e186, "40e43" was a
// bit off). Its normal precision is not exact either, and FP64 tensor values
// must round-trip. So the reader hands every number over as text
// (kParseNumbersAsStringsFlag) and ExactNumberHandler converts it: integers
// that fit int64 or uint64 as such, everything else (and -0) as a correctly
// rounded double, NaN and Infinity as RapidJSON's kParseNanAndInfFlag spells
// them. A number too large for a double is kParseErrorNumberTooBig, as before.
#ifndef INFERD_FRONTENDS_HTTP_EXACT_JSON_H_
#define INFERD_FRONTENDS_HTTP_EXACT_JSON_H_

#include <rapidjson/document.h>
#include <rapidjson/reader.h>

#include <string_view>

namespace inferd::http {

// The number `text` (a JSON number, or NaN/Infinity/-Infinity) as a value;
// false when it is too large for a double.
bool ExactJsonNumber(std::string_view text, rapidjson::Value* out);

// Forwards the reader's events to `Document` (its SAX interface), numbers
// converted by ExactJsonNumber.
template <typename Document>
class ExactNumberHandler {
 public:
  using Ch = char;
  using SizeType = rapidjson::SizeType;
  explicit ExactNumberHandler(Document& document) : document_(document) {}

  bool Null() { return document_.Null(); }
  bool Bool(bool b) { return document_.Bool(b); }
  bool Int(int i) { return document_.Int(i); }
  bool Uint(unsigned u) { return document_.Uint(u); }
  bool Int64(int64_t i) { return document_.Int64(i); }
  bool Uint64(uint64_t u) { return document_.Uint64(u); }
  bool Double(double d) { return document_.Double(d); }
  bool String(const Ch* s, SizeType n, bool copy) { return document_.String(s, n, copy); }
  bool Key(const Ch* s, SizeType n, bool copy) { return document_.Key(s, n, copy); }
  bool StartObject() { return document_.StartObject(); }
  bool EndObject(SizeType members) { return document_.EndObject(members); }
  bool StartArray() { return document_.StartArray(); }
  bool EndArray(SizeType elements) { return document_.EndArray(elements); }
  bool RawNumber(const Ch* s, SizeType n, bool /*copy*/) {
    rapidjson::Value value;
    if (!ExactJsonNumber(std::string_view(s, n), &value)) {
      too_big_ = true;
      return false;
    }
    if (value.IsDouble()) return Double(value.GetDouble());
    if (value.IsUint64()) return Uint64(value.GetUint64());
    return Int64(value.GetInt64());
  }

  bool too_big() const { return too_big_; }

 private:
  Document& document_;
  bool too_big_ = false;
};

// Parses the NUL-terminated `text` in place into `document` with `kFlags`
// (kParseInsituFlag and kParseNumbersAsStringsFlag are added); the parser's
// result, whose code and offset the caller reports.
template <unsigned kFlags, typename Document, typename StackAllocator>
rapidjson::ParseResult ParseInsituExact(char* text, Document* document,
                                        StackAllocator* stack_allocator) {
  constexpr unsigned kAll =
      kFlags | rapidjson::kParseInsituFlag | rapidjson::kParseNumbersAsStringsFlag;
  rapidjson::ParseResult result;
  ExactNumberHandler<Document> handler(*document);
  auto generate = [&](Document& target) {
    (void)target;
    rapidjson::GenericReader<rapidjson::UTF8<>, rapidjson::UTF8<>, StackAllocator> reader(
        stack_allocator);
    rapidjson::InsituStringStream stream(text);
    result = reader.template Parse<kAll>(stream, handler);
    if (result.IsError() && handler.too_big()) {
      result.Set(rapidjson::kParseErrorNumberTooBig, result.Offset());
    }
    return !result.IsError();
  };
  document->Populate(generate);
  return result;
}

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_EXACT_JSON_H_
