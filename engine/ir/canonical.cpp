// The canonical form: a self-delimiting word encoding of everything that decides what a graph
// computes (every count precedes its items, every attribute value carries its kind), and
// nothing that does not (source locations, file names).
#include "engine/ir/attr_words.h"
#include "engine/ir/hash.h"
#include "engine/ir/passes.h"

namespace tensord::ir {
namespace {

constexpr uint64_t kFormatVersion = 0x7464'6366'0000'0001ULL;  // "tdcf", version 1

uint64_t pack(ValueRef v) {
  return uint64_t{v.node} << 32 | v.output;
}

}  // namespace

CanonicalForm canonical_form(const Graph& g, std::span<const ValueRef> outputs) {
  CanonicalForm form;
  auto& w = form.words;
  w.reserve(2 + g.nodes.size() * 8 + outputs.size());
  auto emit = [&w](uint64_t word) { w.push_back(word); };
  emit(kFormatVersion);
  emit(g.nodes.size());
  for (const Node& node : g.nodes) {
    emit(static_cast<uint64_t>(node.op));
    emit(node.attrs.items().size());
    for (const auto& [attr, value] : node.attrs.items()) {
      emit(static_cast<uint64_t>(attr));
      attr_value_words(value, emit);
    }
    emit(node.inputs.size());
    for (ValueRef v : node.inputs) emit(pack(v));
    emit(node.outputs.size());
    for (const TensorType& t : node.outputs) {
      emit(static_cast<uint64_t>(t.dtype));
      emit(t.shape.size());
      for (int64_t d : t.shape) emit(static_cast<uint64_t>(d));
    }
  }
  emit(outputs.size());
  for (ValueRef v : outputs) emit(pack(v));

  WordHasher hasher;
  for (uint64_t word : w) hasher.add(word);
  form.hash = hasher.finish();
  return form;
}

}  // namespace tensord::ir
