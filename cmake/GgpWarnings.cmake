# Warnings and sanitizers for every target of the project, applied per target
# so that generated Flex/Bison sources can be relaxed where they must.
set(GGP_WARNINGS -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
    -Wold-style-definition -Wpointer-arith -Wformat=2 -Wundef -Wvla
    -Wno-unused-parameter)
if(GGP_WERROR)
  list(APPEND GGP_WARNINGS -Werror)
endif()

if(GGP_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
# ThreadSanitizer for the tests that use threads (server, session and
# pondering, grounding thread, tree-parallel search): `--preset tsan`.
if(GGP_TSAN)
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()

# ggp_target_setup(target): the project's warnings on a target we wrote.
function(ggp_target_setup target)
  target_compile_options(${target} PRIVATE ${GGP_WARNINGS})
endfunction()
