// Prints "COLLECTIVE ALGORITHM" for every registered algorithm: the build turns this into the
// differential test matrix, so the tests can never lag behind the registry.
#include <cstdio>

#include "selector/catalog.hpp"

int main() {
  for (collsel::Collective c : collsel::kCollectives) {
    for (const auto& a : collsel::catalog(c)) {
      std::printf("%s %.*s\n", collsel::collective_name(c).data(),
                  static_cast<int>(a.name.size()), a.name.data());
    }
  }
  return 0;
}
