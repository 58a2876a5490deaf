// gridsolve info: what this build can do and which devices it sees.
#pragma once

namespace gridsolve::cli {
int info_command();
}
