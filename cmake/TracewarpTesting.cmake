# tracewarp_add_mpi_tests(NAME <name> TARGET <exe> TAGS <catch-tags> RANKS <n>...)
#
# Registers one ctest per rank count that runs the Catch2 executable under mpirun with the given
# tag filter. This is how every model's determinism tests are added across rank counts: the
# executable itself compares optimistic runs on all ranks with the sequential reference.
function(tracewarp_add_mpi_tests)
  cmake_parse_arguments(ARG "" "NAME;TARGET;TAGS;TIMEOUT" "RANKS;LABELS" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  foreach(ranks IN LISTS ARG_RANKS)
    set(test_name "${ARG_NAME}.ranks${ranks}")
    add_test(NAME ${test_name}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks} --oversubscribe
                     ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${ARG_TARGET}> ${MPIEXEC_POSTFLAGS} "${ARG_TAGS}")
    set_tests_properties(${test_name} PROPERTIES
      LABELS "mpi;${ARG_LABELS}"
      TIMEOUT ${ARG_TIMEOUT}
      PROCESSORS ${ranks}
      ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1")
  endforeach()
endfunction()
