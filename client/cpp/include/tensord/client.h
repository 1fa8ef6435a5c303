// The tensord C++ client: record tensor programs lazily, run them on a tensord daemon.
//
//   auto s = tensord::connect();                                  // default_address()
//   auto a = s.from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
//   auto w = s.full({3, 4}, 0.5f);
//   auto y = tensord::relu(tensord::matmul(a, w) + 1.0f).sum({1});
//   std::vector<float> out = y.to_vector<float>();                // one round trip
//
// Tensor (tensor.h) explains lazy recording and sync points, Session (session.h) connections
// and threads, ops.h the ops. Failures throw tensord::Error (engine/ir/error.h) with a code
// and the source line that recorded the failing op.
#pragma once

#include "engine/ir/error.h"
#include "tensord/axes.h"
#include "tensord/element.h"
#include "tensord/explain.h"
#include "tensord/function.h"
#include "tensord/linalg.h"
#include "tensord/ops.h"
#include "tensord/scalar.h"
#include "tensord/session.h"
#include "tensord/tensor.h"
