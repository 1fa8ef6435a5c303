#include "engine/plan/epilogue.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

namespace tensord::engine {
namespace {

using ir::Op;
using ir::ValueRef;

bool near(double v, double want) {
  return std::abs(v - want) <= 1e-6 * std::abs(want);
}

class Matcher {
 public:
  Matcher(std::span<const ir::Node> nodes, const std::vector<std::vector<uint32_t>>& consumers,
          const std::vector<bool>& is_output, uint32_t matmul)
      : nodes_(nodes), consumers_(consumers), is_output_(is_output), matmul_(matmul) {}

  EpilogueMatch run() {
    const uint32_t matmul = matmul_;
    EpilogueMatch m;
    m.epilogue.matmul = matmul;
    const ir::Node& mm = nodes_[matmul];
    const ir::DType dtype = mm.outputs[0].dtype;
    if (dtype != ir::DType::Float32) {
      m.why = "matmul on " + std::string(ir::name(dtype)) + ": epilogues fuse for float32 only";
      return m;
    }
    if (type(mm.inputs[0]).rank() < 2 || type(mm.inputs[1]).rank() < 2) {
      m.why = "a matrix-vector product has no epilogue";
      return m;
    }
    uint32_t x = matmul;
    for (;;) {
      const size_t before = chain_.size();
      std::optional<uint32_t> next = step(x, m.epilogue.stages);
      if (!next) {
        chain_.resize(before);
        break;
      }
      x = *next;
    }
    if (m.epilogue.stages.empty()) {
      m.why = why_;
      return m;
    }
    std::sort(chain_.begin(), chain_.end());
    m.chain = std::move(chain_);
    return m;
  }

 private:
  const ir::TensorType& type(ValueRef r) const { return nodes_[r.node].outputs[r.output]; }
  const ir::Node& node(uint32_t n) const { return nodes_[n]; }
  static bool is(ValueRef r, uint32_t n) { return r.node == n && r.output == 0; }

  std::vector<uint32_t> users(uint32_t n) const {
    std::vector<uint32_t> u = consumers_[n];
    std::sort(u.begin(), u.end());
    u.erase(std::unique(u.begin(), u.end()), u.end());
    return u;
  }
  // n's value is read by `into` alone (inside the chain) and not by the caller.
  bool feeds_only(uint32_t n, uint32_t into) const {
    const std::vector<uint32_t> u = users(n);
    return !is_output_[n] && u.size() == 1 && u[0] == into;
  }
  // A float32 scalar constant (a `full` of one element).
  std::optional<double> constant(ValueRef r) const {
    const ir::Node& n = node(r.node);
    if (n.op != Op::full || n.outputs[0].dtype != ir::DType::Float32 || n.outputs[0].numel() != 1)
      return std::nullopt;
    return n.attrs.get_float(ir::Attr::value);
  }
  // The operand of binary node `n` that is not x; nullopt when n does not read x exactly once.
  std::optional<ValueRef> other(uint32_t n, uint32_t x) const {
    const ir::Node& nd = node(n);
    if (nd.inputs.size() != 2) return std::nullopt;
    const bool a = is(nd.inputs[0], x), b = is(nd.inputs[1], x);
    if (a == b) return std::nullopt;
    return a ? nd.inputs[1] : nd.inputs[0];
  }
  // Binary `op` node reading x and the constant `want`.
  bool op_with_constant(uint32_t n, Op op, uint32_t x, double want) const {
    if (node(n).op != op) return false;
    const std::optional<ValueRef> o = other(n, x);
    if (!o) return false;
    const std::optional<double> c = constant(*o);
    return c && near(*c, want);
  }
  // Binary `op` node reading a and b, in either order.
  bool reads(uint32_t n, Op op, uint32_t a, uint32_t b) const {
    const ir::Node& nd = node(n);
    return nd.op == op && nd.inputs.size() == 2 &&
           ((is(nd.inputs[0], a) && is(nd.inputs[1], b)) ||
            (is(nd.inputs[0], b) && is(nd.inputs[1], a)));
  }

  std::optional<uint32_t> fail(std::string why) {
    if (why_.empty()) why_ = std::move(why);
    return std::nullopt;
  }

  // One stage after value x: appends it and its nodes, returns the node holding its result.
  std::optional<uint32_t> step(uint32_t x, std::vector<EpilogueStage>& stages) {
    if (is_output_[x]) {
      if (x == matmul_) return fail("the matmul's result is an output of the graph");
      return std::nullopt;
    }
    const std::vector<uint32_t> u = users(x);
    if (u.empty()) return std::nullopt;
    std::optional<uint32_t> r;
    if (u.size() == 1) {
      r = single(x, u[0], stages);
    } else if (u.size() == 2) {
      r = silu(x, u, stages);
      if (!r) r = gelu_erf(x, u, stages);
    } else if (u.size() == 4) {
      r = gelu_tanh(x, u, stages);
    }
    if (!r && u.size() > 1) {
      return fail("the matmul's result has " + std::to_string(u.size()) +
                  " consumers that are not one epilogue");
    }
    return r;
  }
  std::optional<uint32_t> single(uint32_t x, uint32_t c, std::vector<EpilogueStage>& stages) {
    const ir::Node& nd = node(c);
    const ir::TensorType& xt = node(x).outputs[0];
    if (nd.outputs.size() != 1 || nd.outputs[0] != xt) {
      return fail(std::string(ir::name(nd.op)) + " changes the product's type");
    }
    EpilogueStage s;
    const std::optional<ValueRef> o = other(c, x);
    const std::optional<double> k = o ? constant(*o) : std::nullopt;
    switch (nd.op) {
      case Op::relu:
      case Op::sigmoid:
      case Op::tanh:
        s.op = nd.op == Op::relu      ? EpilogueOp::Relu
               : nd.op == Op::sigmoid ? EpilogueOp::Sigmoid
                                      : EpilogueOp::Tanh;
        break;
      case Op::maximum:
        if (!k || *k != 0.0) return fail("maximum with something else than 0 is no relu");
        s.op = EpilogueOp::Relu;
        break;
      case Op::mul:
        if (!k) return fail("mul by a tensor is not an epilogue (only by a scalar constant)");
        s.op = EpilogueOp::Linear, s.alpha = *k;
        break;
      case Op::div:
        if (!k || !is(nd.inputs[0], x) || *k == 0.0)
          return fail("div is an epilogue only by a nonzero scalar constant");
        s.op = EpilogueOp::Linear, s.alpha = 1.0 / *k;
        break;
      case Op::sub:
        if (!k || !is(nd.inputs[0], x)) return fail("sub is an epilogue only of a scalar constant");
        s.op = EpilogueOp::Linear, s.beta = -*k;
        break;
      case Op::add:
        if (!o) return fail("x + x is not an epilogue");
        if (k) {
          s.op = EpilogueOp::Linear, s.beta = *k;
          break;
        }
        if (!added_tensor(*o, xt, s)) return std::nullopt;
        break;
      default:
        return fail(std::string(ir::name(nd.op)) + " is not an epilogue op");
    }
    stages.push_back(s);
    chain_.push_back(c);
    return c;
  }

  // x + t: t a row vector broadcast over the rows (bias) or of x's shape (residual).
  bool added_tensor(ValueRef t, const ir::TensorType& xt, EpilogueStage& s) {
    const ir::TensorType& tt = type(t);
    if (node(t.node).op == Op::full) {
      fail("add of a constant tensor is not an epilogue");
      return false;
    }
    if (tt.dtype != xt.dtype) {
      fail("add of a " + std::string(ir::name(tt.dtype)) + " tensor to a float32 product");
      return false;
    }
    s.operand = t;
    if (tt.shape == xt.shape) {
      s.op = EpilogueOp::Residual;
      return true;
    }
    const bool row =
        !tt.shape.empty() && tt.shape.size() <= xt.shape.size() &&
        tt.shape.back() == xt.shape.back() &&
        std::all_of(tt.shape.begin(), tt.shape.end() - 1, [](int64_t d) { return d == 1; });
    if (!row) {
      fail("add of shape " + ir::to_string(tt.shape) + " is neither a bias row [" +
           std::to_string(xt.shape.back()) + "] nor a residual of the product's shape " +
           ir::to_string(xt.shape));
      return false;
    }
    s.op = EpilogueOp::BiasRow;
    return true;
  }

  // x * sigmoid(x)
  std::optional<uint32_t> silu(uint32_t x, const std::vector<uint32_t>& u,
                               std::vector<EpilogueStage>& stages) {
    for (int i = 0; i < 2; ++i) {
      const uint32_t sg = u[i], m = u[1 - i];
      if (node(sg).op != Op::sigmoid || !reads(m, Op::mul, x, sg) || !feeds_only(sg, m)) continue;
      stages.push_back({EpilogueOp::Silu});
      chain_.insert(chain_.end(), {sg, m});
      return m;
    }
    return std::nullopt;
  }

  // (0.5 * x) * (1 + erf(x * (1 / sqrt 2)))
  std::optional<uint32_t> gelu_erf(uint32_t x, const std::vector<uint32_t>& u,
                                   std::vector<EpilogueStage>& stages) {
    for (int i = 0; i < 2; ++i) {
      const uint32_t sc = u[i], h = u[1 - i];
      if (!op_with_constant(sc, Op::mul, x, 1.0 / std::numbers::sqrt2) ||
          !op_with_constant(h, Op::mul, x, 0.5))
        continue;
      const std::vector<uint32_t> e = users(sc);
      if (e.size() != 1 || node(e[0]).op != Op::erf || !feeds_only(sc, e[0])) continue;
      const std::vector<uint32_t> a = users(e[0]);
      if (a.size() != 1 || !op_with_constant(a[0], Op::add, e[0], 1.0) || !feeds_only(e[0], a[0]))
        continue;
      const std::vector<uint32_t> y = users(a[0]);
      if (y.size() != 1 || !reads(y[0], Op::mul, h, a[0]) || !feeds_only(a[0], y[0]) ||
          !feeds_only(h, y[0]))
        continue;
      stages.push_back({EpilogueOp::GeluErf});
      chain_.insert(chain_.end(), {sc, h, e[0], a[0], y[0]});
      return y[0];
    }
    return std::nullopt;
  }

  // (0.5 * x) * (1 + tanh(k * (x + 0.044715 * (x * (x * x))))), k = sqrt(2 / pi)
  std::optional<uint32_t> gelu_tanh(uint32_t x, const std::vector<uint32_t>& u,
                                    std::vector<EpilogueStage>& stages) {
    std::optional<uint32_t> sq, cube, inner, h;
    for (uint32_t c : u) {
      if (reads(c, Op::mul, x, x)) sq = c;
    }
    if (!sq) return std::nullopt;
    for (uint32_t c : u) {
      if (reads(c, Op::mul, x, *sq)) {
        cube = c;
      } else if (op_with_constant(c, Op::mul, x, 0.5)) {
        h = c;
      } else if (node(c).op == Op::add && other(c, x)) {
        inner = c;
      }
    }
    if (!cube || !h || !inner || !feeds_only(*sq, *cube)) return std::nullopt;
    const std::vector<uint32_t> p = users(*cube);
    if (p.size() != 1 || !op_with_constant(p[0], Op::mul, *cube, 0.044715) ||
        !feeds_only(*cube, p[0]) || !reads(*inner, Op::add, x, p[0]) || !feeds_only(p[0], *inner))
      return std::nullopt;
    const std::vector<uint32_t> q = users(*inner);
    if (q.size() != 1 ||
        !op_with_constant(q[0], Op::mul, *inner, std::sqrt(2.0 / std::numbers::pi)) ||
        !feeds_only(*inner, q[0]))
      return std::nullopt;
    const std::vector<uint32_t> t = users(q[0]);
    if (t.size() != 1 || node(t[0]).op != Op::tanh || !feeds_only(q[0], t[0])) return std::nullopt;
    const std::vector<uint32_t> a = users(t[0]);
    if (a.size() != 1 || !op_with_constant(a[0], Op::add, t[0], 1.0) || !feeds_only(t[0], a[0]))
      return std::nullopt;
    const std::vector<uint32_t> y = users(a[0]);
    if (y.size() != 1 || !reads(y[0], Op::mul, *h, a[0]) || !feeds_only(a[0], y[0]) ||
        !feeds_only(*h, y[0]))
      return std::nullopt;
    stages.push_back({EpilogueOp::GeluTanh});
    chain_.insert(chain_.end(), {*sq, *cube, p[0], *inner, q[0], t[0], a[0], *h, y[0]});
    return y[0];
  }

  std::span<const ir::Node> nodes_;
  const std::vector<std::vector<uint32_t>>& consumers_;
  const std::vector<bool>& is_output_;
  std::vector<uint32_t> chain_;
  uint32_t matmul_;
  std::string why_;
};

}  // namespace

const char* epilogue_op_name(EpilogueOp op) {
  switch (op) {
    case EpilogueOp::BiasRow:
      return "bias_row";
    case EpilogueOp::Residual:
      return "residual";
    case EpilogueOp::Relu:
      return "relu";
    case EpilogueOp::GeluErf:
      return "gelu_erf";
    case EpilogueOp::GeluTanh:
      return "gelu_tanh";
    case EpilogueOp::Silu:
      return "silu";
    case EpilogueOp::Sigmoid:
      return "sigmoid";
    case EpilogueOp::Tanh:
      return "tanh";
    case EpilogueOp::Linear:
      return "linear";
  }
  return "?";
}

std::string MatmulEpilogue::text() const {
  std::string s;
  for (const EpilogueStage& st : stages) {
    if (!s.empty()) s += '+';
    s += epilogue_op_name(st.op);
    if (st.op == EpilogueOp::Linear) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "(%.9g,%.9g)", st.alpha, st.beta);
      s += buf;
    }
  }
  return s;
}

EpilogueMatch match_epilogue(std::span<const ir::Node> nodes,
                             const std::vector<std::vector<uint32_t>>& consumers,
                             const std::vector<bool>& is_output, uint32_t matmul) {
  return Matcher(nodes, consumers, is_output, matmul).run();
}

}  // namespace tensord::engine
