// Ordinary least squares of y against x, accumulated one point at a time: the straight lines
// collsel reads off measured tables (Hockney's beta from the pLogP gaps of the largest sizes,
// LogfP's gap from the last round trips measured). Pure; no MPI.
#pragma once

#include <optional>

namespace collsel::models {

class LineFit {
 public:
  void add(double x, double y) {
    n_ += 1.0;
    sx_ += x;
    sy_ += y;
    sxx_ += x * x;
    sxy_ += x * y;
  }

  // The least-squares slope; none with fewer than two points or a single distinct x.
  [[nodiscard]] std::optional<double> slope() const {
    const double spread = n_ * sxx_ - sx_ * sx_;
    if (n_ < 2.0 || spread <= 0.0) return std::nullopt;
    return (n_ * sxy_ - sx_ * sy_) / spread;
  }

 private:
  double n_ = 0.0, sx_ = 0.0, sy_ = 0.0, sxx_ = 0.0, sxy_ = 0.0;
};

}  // namespace collsel::models
