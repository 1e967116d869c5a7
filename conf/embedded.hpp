// The files of conf/ compiled into the library, so a job without any installed file still gets
// the default model and configuration (generated from conf/*.toml by conf/CMakeLists.txt).
#pragma once

#include <string_view>

namespace collsel::conf {

inline constexpr std::string_view kEmbeddedModelName = "<embedded default model>";

std::string_view embedded_default_model();   // conf/default_model.toml
std::string_view embedded_default_config();  // conf/collsel.toml
std::string_view installed_config_path();    // where `cmake --install` puts conf/collsel.toml

}  // namespace collsel::conf
