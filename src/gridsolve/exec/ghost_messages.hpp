// Ghost messages: the faces of a field's box that border other ranks, packed, sent and
// unpacked one axis at a time (exchange_ghosts calls this; nothing else should).
#pragma once
#include "gridsolve/exec/field.hpp"
#include "gridsolve/exec/ghost_exchange.hpp"

namespace gridsolve {

// Whether face f (0..5) of a decomposed field is filled by a message from another rank:
// a face inside the global box, or a periodic face of an axis split over several ranks.
// Every other face follows its rule in `sides`, as on one patch.
template <class T>
bool ghost_face_has_message(const Field<T>& f, const GhostSides& sides, int face);

// Fills the message faces on `axis` of a decomposed field: the ghost slab spans `span`
// across the axis (the valid box grown by the ghost width on the axes already done, so
// edges and corners travel with the faces). A periodic node-centred axis also rewrites
// the last node (the first node's image) when sides.rewrite_images says so, as on one
// patch. Every rank of the field's decomposition must call it for the same axis.
template <class T>
void exchange_ghost_messages(Field<T>& f, const GhostSides& sides, int axis, const Box& span);

}  // namespace gridsolve
