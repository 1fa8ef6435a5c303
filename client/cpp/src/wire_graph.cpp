#include "client/cpp/src/wire_graph.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>
#include <variant>

namespace tensord::detail {
namespace {

// Source file names, interned: a program has few files, every node names one.
class FileTable {
 public:
  FileTable() : files_{""} {}
  uint32_t intern(const char* file) {
    if (file == nullptr || *file == '\0') return 0;
    auto [it, added] = index_.emplace(file, static_cast<uint32_t>(files_.size()));
    if (added) files_.push_back(file);
    return it->second;
  }
  const std::vector<std::string_view>& files() const { return files_; }

 private:
  std::vector<std::string_view> files_;  // source_location file names have static storage
  std::unordered_map<std::string_view, uint32_t> index_;
};

void write_ints(std::span<const int64_t> values, capnp::List<int64_t>::Builder out) {
  for (size_t i = 0; i < values.size(); ++i) out.set(static_cast<unsigned>(i), values[i]);
}

void write_attr(ir::Attr attr, const ir::AttrValue& value, ::Attr::Builder out) {
  set_text(ir::name(attr), [&](unsigned n) { return out.initName(n); });
  auto v = out.initValue();
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, int64_t>) {
          v.setInt(x);
        } else if constexpr (std::is_same_v<T, double>) {
          v.setFloat(x);
        } else if constexpr (std::is_same_v<T, bool>) {
          v.setBool(x);
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          write_ints(x, v.initInts(static_cast<unsigned>(x.size())));
        } else if constexpr (std::is_same_v<T, std::vector<double>>) {
          auto list = v.initFloats(static_cast<unsigned>(x.size()));
          for (size_t i = 0; i < x.size(); ++i) list.set(static_cast<unsigned>(i), x[i]);
        } else {
          set_text(ir::name(x), [&](unsigned n) { return v.initDtype(n); });
        }
      },
      value);
}

void write_attrs(const ir::Attrs& attrs, ::Node::Builder out) {
  auto list = out.initAttrs(static_cast<unsigned>(attrs.items().size()));
  unsigned i = 0;
  for (const auto& [attr, value] : attrs.items()) write_attr(attr, value, list[i++]);
}

}  // namespace

void write_graph(const PendingGraph& pending, wire::Graph::Builder graph) {
  FileTable files;
  auto nodes = graph.initNodes(static_cast<unsigned>(pending.num_nodes()));
  auto locate = [&](const TensorNode& n, ::Node::Builder out) {
    out.setFile(files.intern(n.loc.file_name()));
    out.setLine(n.loc.line());
  };

  for (uint32_t i = 0; i < pending.leaves.size(); ++i) {
    const TensorNode& leaf = *pending.leaves[i].node;
    auto out = nodes[i];
    set_text(ir::name(ir::Op::input), [&](unsigned n) { return out.initOp(n); });
    write_attrs(ir::Attrs{{ir::Attr::index, int64_t{i}},
                          {ir::Attr::dtype, leaf.type.dtype},
                          {ir::Attr::shape, leaf.type.shape}},
                out);
    locate(leaf, out);
  }
  uint32_t index = static_cast<uint32_t>(pending.leaves.size());
  for (const TensorNode* op : pending.ops) {
    auto out = nodes[index++];
    set_text(ir::name(op->op), [&](unsigned n) { return out.initOp(n); });
    auto inputs = out.initInputs(static_cast<unsigned>(op->inputs.size()));
    for (unsigned k = 0; k < op->inputs.size(); ++k) {
      const WireValue v = pending.wire_index.at(op->inputs[k].get());
      inputs[k].setNode(v.node);
      inputs[k].setOutput(v.output);
    }
    write_attrs(op->attrs, out);
    locate(*op, out);
  }

  auto names = graph.initFiles(static_cast<unsigned>(files.files().size()));
  for (unsigned i = 0; i < files.files().size(); ++i) {
    set_text(files.files()[i], [&](unsigned n) { return names.init(i, n); });
  }
}

void write_inline(const TensorNode& host, ::InlineTensor::Builder out) {
  set_text(ir::name(host.type.dtype), [&](unsigned n) { return out.initDtype(n); });
  write_ints(host.type.shape, out.initShape(static_cast<unsigned>(host.type.shape.size())));
  auto bytes = host.host_bytes();
  auto data = out.initData(static_cast<unsigned>(bytes.size()));
  if (!bytes.empty()) std::memcpy(data.begin(), bytes.data(), bytes.size());
}

}  // namespace tensord::detail
