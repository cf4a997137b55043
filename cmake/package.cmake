# `make deb`: Debian packages of the install components (cmake/install.cmake), prefix /usr.
#   textfeed      the command and the Python package (/usr/lib/python3/dist-packages/textfeed);
#                 Depends from dpkg-shlibdeps (dpkg-dev) plus the Python modules it imports
#   textfeed-dev  headers, static libraries, find_package(textfeed); Depends on the -dev packages
#                 its config finds
set(CPACK_PACKAGE_NAME textfeed)
set(CPACK_PACKAGE_VENDOR textfeed)
set(CPACK_PACKAGE_CONTACT "textfeed developers <textfeed@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "C++ data feeder for EAST scene-text detector training")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_STRIP_FILES ON)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)
set(CPACK_COMPONENTS_ALL runtime python dev)
set(CPACK_COMPONENT_RUNTIME_GROUP main)
set(CPACK_COMPONENT_PYTHON_GROUP main)
set(CPACK_COMPONENT_DEV_GROUP dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)

set(CPACK_DEBIAN_MAIN_PACKAGE_NAME textfeed)
# The summary (CPACK_PACKAGE_DESCRIPTION_SUMMARY) is each description's first line.
set(CPACK_DEBIAN_MAIN_DESCRIPTION "The textfeed command (serve, cache, inspect, bench, ...) and the Python package
textfeed (Loader, in place of torch.utils.data.DataLoader).")
# What the Python package imports besides its extension (whose libraries shlibdeps finds).
set(CPACK_DEBIAN_MAIN_PACKAGE_DEPENDS "python3 (>= 3.11), python3 (<< 3.12), python3-numpy, python3-torch")
# textfeed.dask (sharded builds and daemons on a Dask cluster, cache build --dask) imports these.
set(CPACK_DEBIAN_MAIN_PACKAGE_SUGGESTS "python3-distributed")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME textfeed-dev)
set(CPACK_DEBIAN_DEV_DESCRIPTION "The C++ static libraries, headers and CMake package of textfeed:
find_package(textfeed) and link textfeed::client.")
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "textfeed (= ${PROJECT_VERSION}), cmake, pkg-config, libopencv-dev, \
libtbb-dev, libcapnp-dev, libzmq3-dev, libturbojpeg0-dev, libjpeg62-turbo-dev, libsimdjson-dev")

include(CPack)
