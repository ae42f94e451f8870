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

# tracewarp_add_catch_cases(TARGET <exe> TAG <catch-tag> LABEL <label> SOURCES <file>...)
#
# Registers every Catch2 test case of <exe> carrying <TAG> as its own ctest, named "<folder>/<test
# case>" and labelled "<LABEL>;<folder>", where <folder> is the tests/
# sub-folder of the file that defines it (unit, io, policy, model, workload, experiment): `ctest -N` then
# lists behaviours, and `ctest -L policy` runs one layer.
include(Catch)
function(tracewarp_add_catch_cases)
  cmake_parse_arguments(ARG "" "TARGET;TAG;LABEL;TIMEOUT" "SOURCES" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  foreach(source IN LISTS ARG_SOURCES)
    get_filename_component(stem ${source} NAME_WE)
    get_filename_component(folder ${source} DIRECTORY)
    catch_discover_tests(${ARG_TARGET}
      TEST_SPEC "-#" "[#${stem}]${ARG_TAG}"
      TEST_PREFIX "${folder}/"
      PROPERTIES LABELS "${ARG_LABEL};${folder}" TIMEOUT ${ARG_TIMEOUT})
  endforeach()
endfunction()
