// Compiles include/idmint.h as C++ (the extern "C" guards and every declaration) and links one
// call against the library. Built by bindings-c/test.sh with -Wall -Wextra -Werror -pedantic.
#include "idmint.h"

#include <cstdio>
#include <cstring>

int main() {
    idmint_layout *l = nullptr;
    idmint_status s = idmint_layout_new("twitter", &l);
    idmint_layout_free(l);
    if (s != IDMINT_OK || std::strcmp(idmint_version(), IDMINT_VERSION) != 0) {
        std::printf("C++ header check failed: %s\n", idmint_last_error_message());
        return 1;
    }
    std::printf("C++ header check: ok (idmint %s)\n", idmint_version());
    return 0;
}
