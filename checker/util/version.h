/* version.h: the envparity release. */
#ifndef EP_VERSION_H
#define EP_VERSION_H

#define EP_VERSION "0.3.0"

#endif
