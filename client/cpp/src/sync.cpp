#include "client/cpp/src/sync.h"

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "client/cpp/src/errors.h"
#include "client/cpp/src/graph_builder.h"
#include "client/cpp/src/recorder.h"
#include "client/cpp/src/shared_transfer.h"
#include "client/cpp/src/transfer.h"
#include "client/cpp/src/wire_graph.h"
#include "engine/ir/dynamic.h"

namespace tensord::detail {
namespace {

using Bytes = std::vector<std::byte>;

struct RunOutput {
  std::shared_ptr<TensorNode> node;
  WireValue value;
  bool fetch;
};

struct LeafUpload {
  uint32_t wire_node;
  Upload upload;
};

// The daemon and the client run the same inference, so a result of another type is a bug,
// except where the client's type has a data-dependent dimension (ir::kDynamic): there the
// client learns the size now.
void check_result_type(TensorNode& node, ::Result::Reader r) {
  auto dtype = ir::dtype_from_name(std::string(r.getDtype().cStr()));
  ir::Shape shape;
  for (int64_t d : r.getShape()) shape.push_back(d);
  bool learned = dtype == node.type.dtype && shape.size() == node.type.shape.size();
  for (size_t d = 0; learned && d < shape.size(); ++d) {
    learned = node.type.shape[d] == ir::kDynamic ? shape[d] >= 0 : shape[d] == node.type.shape[d];
  }
  if (learned) {
    node.type.shape = std::move(shape);
  } else {
    throw Error(ErrorCode::Internal,
                "the daemon returned " + std::string(r.getDtype().cStr()) + ir::to_string(shape) +
                    " where the client inferred " + ir::to_string(node.type),
                std::nullopt, std::string(ir::name(node.op)), where(node.loc));
  }
}

// One `run`: the pending graph of `roots`, returning the inline bytes of fetched roots.
std::unordered_map<const TensorNode*, Bytes> run(
    SessionState& s, const std::vector<std::shared_ptr<TensorNode>>& roots,
    const std::unordered_set<const TensorNode*>& fetch, std::source_location loc) {
  PendingGraph g = collect_pending(roots);

  std::vector<RunOutput> outputs;
  std::unordered_set<const TensorNode*> is_output;
  for (const auto& root : roots) {
    outputs.push_back({root, g.wire_index.at(root.get()), fetch.contains(root.get())});
    is_output.insert(root.get());
  }
  for (TensorNode* op : g.held_ops) {
    outputs.push_back({op->shared_from_this(), g.wire_index.at(op), false});
  }

  auto request = s.session.runRequest();
  auto graph = request.initGraph();
  write_graph(g, graph);

  // Inputs: capabilities for daemon tensors; host data inline while the message stays within
  // one chunk, uploaded otherwise. Held host data becomes a daemon tensor too: inline data as
  // an extra output of its input node, uploads as the upload's own tensor.
  auto inputs = graph.initInputs(static_cast<unsigned>(g.leaves.size()));
  std::vector<LeafUpload> uploads;
  uint64_t inline_budget = s.chunk_bytes;
  uint32_t i = 0;
  try {
    for (; i < g.leaves.size(); ++i) {
      TensorNode& leaf = *g.leaves[i].node;
      if (leaf.state == TensorNode::State::Parameter) {
        throw_traced_value(leaf);
      } else if (leaf.state == TensorNode::State::Materialized) {
        inputs[i].setTensor(*leaf.remote);
      } else if (leaf.state == TensorNode::State::InFlight) {
        inputs[i].setTensor(promised_tensor(leaf));
      } else if (leaf.host_bytes().size() <= inline_budget) {
        inline_budget -= leaf.host_bytes().size();
        write_inline(leaf, inputs[i].initInline());
        if (g.leaves[i].held && !is_output.contains(&leaf)) {
          outputs.push_back({leaf.shared_from_this(), WireValue{i, 0}, false});
        }
      } else {
        uploads.push_back({i, upload_leaf(s, leaf)});
        inputs[i].setTensor(uploads.back().upload.tensor);
      }
    }
  } catch (const kj::Exception& e) {
    throw translate(e, &g, loc, i);
  }

  auto wire_outputs = request.initOutputs(static_cast<unsigned>(outputs.size()));
  for (unsigned k = 0; k < outputs.size(); ++k) {
    auto value = wire_outputs[k].initValue();
    value.setNode(outputs[k].value.node);
    value.setOutput(outputs[k].value.output);
    wire_outputs[k].setFetch(outputs[k].fetch);
  }

  auto promise = request.send();
  capnp::Response<wire::Session::RunResults> response = [&] {
    try {
      return promise.wait(s.wait_scope());
    } catch (const kj::Exception& e) {
      // A failed upload fails the run too; its own error says which input broke. Every
      // upload's writes settle first: their chunks reference the leaves' bytes in place.
      std::optional<Error> upload_error;
      for (auto& u : uploads) {
        try {
          u.upload.writes.wait(s.wait_scope());
        } catch (const kj::Exception& write_error) {
          if (!upload_error) upload_error = translate(write_error, &g, loc, u.wire_node);
        }
      }
      if (upload_error) throw *upload_error;
      throw translate(e, &g, loc);
    }
  }();

  for (auto& u : uploads) {
    uint64_t total = g.leaves[u.wire_node].node->type.nbytes();
    report_transfer(s, true, total, total);
  }

  auto results = response.getResults();
  if (results.size() != outputs.size()) {
    throw Error(ErrorCode::Internal, "the daemon returned " + std::to_string(results.size()) +
                                         " results for " + std::to_string(outputs.size()) +
                                         " outputs");
  }
  std::unordered_map<const TensorNode*, Bytes> fetched;
  for (unsigned k = 0; k < results.size(); ++k) {
    check_result_type(*outputs[k].node, results[k]);
    if (outputs[k].fetch && results[k].getFetched()) {
      auto data = results[k].getData();
      if (data.size() != outputs[k].node->type.nbytes()) {
        throw Error(ErrorCode::Internal, "the daemon returned a wrong byte count");
      }
      auto begin = reinterpret_cast<const std::byte*>(data.begin());
      fetched.emplace(outputs[k].node.get(), Bytes(begin, begin + data.size()));
    }
  }
  // Materializing drops history, which may free nodes: from here on only owned pointers.
  std::vector<std::pair<std::shared_ptr<TensorNode>, wire::Tensor::Client>> done;
  for (unsigned k = 0; k < results.size(); ++k) {
    done.emplace_back(outputs[k].node, results[k].getTensor());
  }
  for (auto& u : uploads) {
    const auto& leaf = g.leaves[u.wire_node];
    if (leaf.held && !is_output.contains(leaf.node)) {
      done.emplace_back(leaf.node->shared_from_this(), u.upload.tensor);
    }
  }
  for (auto& [node, tensor] : done) node->materialize(std::move(tensor));
  return fetched;
}

}  // namespace

std::vector<FetchedBytes> sync_point(SessionState& s, const std::vector<SyncRequest>& requests,
                                     std::source_location loc) {
  s.check_thread();
  for (const SyncRequest& r : requests) settle(*r.node);
  std::vector<FetchedBytes> bytes(requests.size());

  // What the run must compute or send: pending values, and host data that is to stay on the
  // daemon. Fetching host data needs no daemon at all.
  std::vector<std::shared_ptr<TensorNode>> roots;
  std::unordered_set<const TensorNode*> fetch;
  std::unordered_set<const TensorNode*> listed;
  for (const SyncRequest& r : requests) {
    bool needs_run = r.node->state == TensorNode::State::Pending ||
                     (r.node->state == TensorNode::State::Host && !r.fetch);
    if (needs_run && listed.insert(r.node.get()).second) roots.push_back(r.node);
    if (r.fetch && r.node->state == TensorNode::State::Pending) fetch.insert(r.node.get());
  }
  std::unordered_map<const TensorNode*, Bytes> fetched;
  if (!roots.empty()) fetched = run(s, roots, fetch, loc);

  for (size_t i = 0; i < requests.size(); ++i) {
    const SyncRequest& r = requests[i];
    if (!r.fetch) continue;
    TensorNode& node = *r.node;
    if (auto it = fetched.find(&node); it != fetched.end()) {
      bytes[i].owned = it->second;
    } else if (node.state == TensorNode::State::Parameter) {
      throw_traced_value(node);
    } else if (node.state == TensorNode::State::Host) {
      auto host = node.host_bytes();
      bytes[i].owned.assign(host.begin(), host.end());
    } else {
      const size_t n = node.type.nbytes();
      try {
        if (s.passes_fds && n >= HostBufferPool::kMinBytes) {
          bytes[i].shared = s.host_buffers.acquire(n);
          read_shared(s, *node.remote, bytes[i].shared);
        } else {
          bytes[i].owned = read_all(s, *node.remote, n);
        }
      } catch (const kj::Exception& e) {
        throw translate(e, nullptr, node.loc);
      }
    }
  }
  return bytes;
}

}  // namespace tensord::detail
