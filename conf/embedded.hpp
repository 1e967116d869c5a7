// The files of conf/ compiled into the library, so a job without any installed file still gets
// the default model and configuration (generated from conf/*.toml by conf/CMakeLists.txt).
#pragma once

#include <string>
#include <string_view>

namespace collsel::conf {

inline constexpr std::string_view kEmbeddedModelName = "<embedded default model>";

std::string_view embedded_default_model();   // conf/default_model.toml
std::string_view embedded_default_config();  // conf/collsel.toml
// Where `cmake --install` put conf/collsel.toml: the configured path, or, when the installed tree
// was moved or installed with `cmake --install --prefix`, the same place relative to the folder
// this library is loaded from. The configured path when neither exists.
std::string installed_config_path();

}  // namespace collsel::conf
