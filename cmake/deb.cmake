# SPDX-License-Identifier: MIT
# Debian packages of the install rules' components, made by CPack's DEB
# generator (make deb; docs/install.md): configure with
# -DCMAKE_INSTALL_PREFIX=/usr, so that GNUInstallDirs gives the multiarch
# libdir, then run cpack in the build folder.
#   runtime -> libhybridio<SOVERSION>  the shared library
#   dev     -> libhybridio-dev         headers, .so link, .pc, CMake package, man3/man7
#   tools   -> hybridio-tools          hio-bench and man1, the fio engine, the RocksDB plugin
set(HIO_DEB_MAINTAINER "The hybridio authors <hybridio@example.org>" CACHE STRING
  "Maintainer field of the Debian packages: name <address>")
set(HIO_DEB_RELEASE 1 CACHE STRING "Debian revision of the packages (the -N of VERSION-N)")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hybridio)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${HIO_DEB_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX "${CMAKE_INSTALL_PREFIX}")
set(CPACK_PACKAGE_DIRECTORY "${PROJECT_BINARY_DIR}/deb")
# Only the three packages: a rule without a component stays out of them
# (tests/packaging checks that they hold all that cmake --install puts).
set(CPACK_COMPONENTS_ALL runtime dev tools)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE ${HIO_DEB_RELEASE})
set(CPACK_DEBIAN_PACKAGE_SOURCE hybridio)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Binaries stripped; dpkg's permissions on the control files (lintian checks both).
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Depends from what the binaries link (dpkg-shlibdeps); the build folder
# lets it find libhybridio.so.0, which no installed package provides yet:
# the packages that link it name libhybridio0 themselves.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${PROJECT_BINARY_DIR}")

set(hio_deb_version "${PROJECT_VERSION}-${HIO_DEB_RELEASE}")
string(CONCAT hio_deb_about
  "hybridio runs I/O queues over io_uring and over an emulated SSD, each\n"
  "waiting for its completions by interrupt, by busy polling or by hybrid\n"
  "polling, and its adaptive strategy chooses among them, tick by tick,\n"
  "from the contention it measures on its core.\n"
  "\n")

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME libhybridio${PROJECT_VERSION_MAJOR})
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
# libhybridio0's dpkg-shlibdeps runs in cmake/deb-staging.cmake instead:
# CPack's own run would also write a postinst and a postrm that call
# ldconfig, which the trigger below makes redundant (lintian warns), and a
# postrm keeps the package in dpkg's records after dpkg -r.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS OFF)
set(CPACK_HIO_SHLIBDEPS_COMPONENTS runtime)
string(CONCAT CPACK_DEBIAN_RUNTIME_DESCRIPTION "user-space I/O engine for fast SSDs - shared library\n"
  "${hio_deb_about}"
  "This package contains the shared library.")
# The shlibs file, for other packages' dpkg-shlibdeps: a program built
# against 0.N needs 0.N or a later 0.x. CPack's own (GENERATE_SHLIBS) would
# pin the Debian revision too. The ldconfig trigger, as Debian policy asks.
set(hio_deb_control "${PROJECT_BINARY_DIR}/deb-control")
file(WRITE "${hio_deb_control}/shlibs"
  "libhybridio ${PROJECT_VERSION_MAJOR} ${CPACK_DEBIAN_RUNTIME_PACKAGE_NAME} (>= ${PROJECT_VERSION})\n")
file(WRITE "${hio_deb_control}/triggers" "activate-noawait ldconfig\n")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA "${hio_deb_control}/shlibs;${hio_deb_control}/triggers")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libhybridio-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "${CPACK_DEBIAN_RUNTIME_PACKAGE_NAME} (= ${hio_deb_version})")
string(CONCAT CPACK_DEBIAN_DEV_DESCRIPTION "user-space I/O engine for fast SSDs - development files\n"
  "${hio_deb_about}"
  "This package contains the C and C++ headers, the pkg-config file, the\n"
  "CMake package (find_package(hybridio), hybridio::hybridio) and the\n"
  "manual pages of the API.")

# The fio engine's ABI is fio's headers: it serves the fio release it was
# built against (HIO_FIO_VERSION, from plugins/fio); hio-bench needs no fio.
set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME hybridio-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "${CPACK_DEBIAN_RUNTIME_PACKAGE_NAME} (= ${hio_deb_version}), python3, \
python3-matplotlib (>= 3.5), python3-jinja2 (>= 3.0), python3-tqdm (>= 4.60), python3-numpy (>= 1:1.21), \
python3-scipy (>= 1.10)")
set(CPACK_DEBIAN_TOOLS_PACKAGE_RECOMMENDS "fio")
if(HIO_FIO_VERSION MATCHES "([0-9]+)\\.([0-9]+)")
  math(EXPR hio_fio_next "${CMAKE_MATCH_2} + 1")
  set(CPACK_DEBIAN_TOOLS_PACKAGE_RECOMMENDS "fio (>= ${CMAKE_MATCH_1}.${CMAKE_MATCH_2}), fio (<< ${CMAKE_MATCH_1}.${hio_fio_next})")
endif()
set(CPACK_DEBIAN_TOOLS_PACKAGE_SUGGESTS "rocksdb-tools")
string(CONCAT CPACK_DEBIAN_TOOLS_DESCRIPTION "user-space I/O engine for fast SSDs - benchmark and plugins\n"
  "${hio_deb_about}"
  "This package contains hio-bench, a benchmark with fio's options, job\n"
  "files and JSON output on hybridio's wait strategies; hio-study, the\n"
  "contention study, which runs it beside a CPU-bound co-runner and\n"
  "reports which way of waiting to use; and two plugins in\n"
  "${CMAKE_INSTALL_FULL_LIBDIR}/hybridio: libhybridio-fio.so, an external\n"
  "ioengine for fio (fio --ioengine=external:PATH), and\n"
  "libhybridio-rocksdb.so, a RocksDB FileSystem that db_bench and ldb load\n"
  "with LD_PRELOAD=PATH for --fs_uri=hybridio://.")

# What Debian wants in every package beside the install rules' files:
# /usr/share/doc/<package>/copyright (from LICENSE) and changelog.Debian.gz,
# and the manual pages gzipped (cmake --install keeps them plain).
set(CPACK_HIO_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_HIO_DEB_VERSION "${hio_deb_version}")
# The fio engine is compiled against fio's GPL-2 headers (README, License).
string(CONCAT CPACK_HIO_COPYRIGHT_COMMENT_TOOLS
  "libhybridio-fio.so, the fio engine, is compiled against the headers of\n"
  " fio (GPL-2, /usr/share/doc/fio/copyright) and runs inside fio.")
set(CPACK_PRE_BUILD_SCRIPTS "${PROJECT_SOURCE_DIR}/cmake/deb-staging.cmake")

include(CPack)
