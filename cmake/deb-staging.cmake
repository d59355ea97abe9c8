# SPDX-License-Identifier: MIT
# Run by CPack (CPACK_PRE_BUILD_SCRIPTS, cmake/deb.cmake) on each package's
# staging tree, before the .debs are made: adds what Debian policy wants
# that cmake --install does not put in place.
#  - /usr/share/doc/<package>/copyright: LICENSE in the machine-readable
#    format (the MIT license is "Expat" there), with the package's comment
#    (CPACK_HIO_COPYRIGHT_COMMENT_<COMPONENT>) if it has one;
#  - /usr/share/doc/<package>/changelog.Debian.gz: one entry for this version;
#  - the manual pages gzipped (-n: no name or time stamp, for reproducible packages);
#  - the Depends of the components in CPACK_HIO_SHLIBDEPS_COMPONENTS, from
#    dpkg-shlibdeps (cmake/deb.cmake says why not by CPack).
file(READ "${CPACK_HIO_LICENSE}" license)
if(NOT license MATCHES "Copyright \\(c\\) ([^\n]+)\n+(.*[^\n])\n*$")
  message(FATAL_ERROR "${CPACK_HIO_LICENSE}: no 'Copyright (c) ...' line followed by the license's text")
endif()
set(holder "${CMAKE_MATCH_1}")
set(text "${CMAKE_MATCH_2}")
# Debian's control-file syntax: each line indented, an empty line a lone dot.
string(REGEX REPLACE "\n\n" "\n.\n" text "${text}")
string(REGEX REPLACE "\n" "\n " text "${text}")
string(CONCAT copyright_header
  "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
  "Upstream-Name: hybridio\n"
  "Upstream-Contact: ${CPACK_PACKAGE_CONTACT}\n")
string(CONCAT copyright_files
  "Files: *\n"
  "Copyright: ${holder}\n"
  "License: Expat\n"
  " ${text}\n")

# SOURCE_DATE_EPOCH, when set, fixes the entry's date.
string(TIMESTAMP date "%a, %d %b %Y %H:%M:%S +0000" UTC)
string(CONCAT changelog
  "${CPACK_DEBIAN_PACKAGE_SOURCE} (${CPACK_HIO_DEB_VERSION}) unstable; urgency=medium\n"
  "\n"
  "  * hybridio ${CPACK_PACKAGE_VERSION}, packaged from its source tree with CPack\n"
  "    (make deb). Its changes are in CHANGELOG.md of the source.\n"
  "\n"
  " -- ${CPACK_PACKAGE_CONTACT}  ${date}\n")

find_program(GZIP gzip REQUIRED)
foreach(component IN LISTS CPACK_COMPONENTS_ALL)
  string(TOUPPER "${component}" upper)
  set(package "${CPACK_DEBIAN_${upper}_PACKAGE_NAME}")
  set(root "${CPACK_TEMPORARY_DIRECTORY}/${component}${CPACK_PACKAGING_INSTALL_PREFIX}")
  if(NOT package OR NOT IS_DIRECTORY "${root}")
    message(FATAL_ERROR "deb-staging: no package name or staging tree for the component '${component}' (${root})")
  endif()
  set(doc "${root}/share/doc/${package}")
  file(MAKE_DIRECTORY "${doc}")
  set(comment "")
  if(DEFINED CPACK_HIO_COPYRIGHT_COMMENT_${upper})
    set(comment "Comment: ${CPACK_HIO_COPYRIGHT_COMMENT_${upper}}\n")
  endif()
  file(WRITE "${doc}/copyright" "${copyright_header}${comment}\n${copyright_files}")
  file(WRITE "${doc}/changelog.Debian" "${changelog}")
  file(GLOB_RECURSE pages "${root}/share/man/*")
  foreach(f IN LISTS pages ITEMS "${doc}/changelog.Debian")
    if(NOT f MATCHES "\\.gz$")
      execute_process(COMMAND "${GZIP}" -9nf "${f}" COMMAND_ERROR_IS_FATAL ANY)
    endif()
  endforeach()
endforeach()

find_program(DPKG_SHLIBDEPS dpkg-shlibdeps REQUIRED)
foreach(component IN LISTS CPACK_HIO_SHLIBDEPS_COMPONENTS)
  file(GLOB_RECURSE files LIST_DIRECTORIES false "${CPACK_TEMPORARY_DIRECTORY}/${component}/*")
  set(objects "")
  foreach(f IN LISTS files)
    file(READ "${f}" magic LIMIT 4 HEX)
    if(NOT IS_SYMLINK "${f}" AND magic STREQUAL "7f454c46")  # ELF
      list(APPEND objects "${f}")
    endif()
  endforeach()
  # dpkg-shlibdeps wants debian/control in its working folder, which must
  # not be in a package's tree.
  set(work "${CPACK_TOPLEVEL_DIRECTORY}/shlibdeps-${component}")
  file(WRITE "${work}/debian/control" "")
  execute_process(COMMAND "${DPKG_SHLIBDEPS}" -O --ignore-missing-info ${objects}
    WORKING_DIRECTORY "${work}" OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  file(REMOVE_RECURSE "${work}")
  if(NOT rc EQUAL 0 OR NOT out MATCHES "shlibs:Depends=([^\n]+)")
    message(FATAL_ERROR "deb-staging: dpkg-shlibdeps on ${objects}: ${err}")
  endif()
  string(TOUPPER "${component}" upper)
  # Pre-build scripts run in CPack's own scope: CPackDeb reads this after
  # (tests/packaging checks that libhybridio0 depends on libc6).
  set(CPACK_DEBIAN_${upper}_PACKAGE_DEPENDS "${CMAKE_MATCH_1}")
endforeach()
