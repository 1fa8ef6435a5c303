#include "engine/exec/compile_mode.h"

namespace tensord::engine {

std::string_view name(CompileMode mode) {
  switch (mode) {
    case CompileMode::Eager:
      return "eager";
    case CompileMode::Default:
      return "default";
    case CompileMode::ReduceOverhead:
      return "reduce-overhead";
    case CompileMode::MaxAutotune:
      return "max-autotune";
  }
  return "default";
}

std::optional<CompileMode> compile_mode_from_name(std::string_view n) {
  for (CompileMode m : {CompileMode::Eager, CompileMode::Default, CompileMode::ReduceOverhead,
                        CompileMode::MaxAutotune}) {
    if (name(m) == n) return m;
  }
  return std::nullopt;
}

}  // namespace tensord::engine
