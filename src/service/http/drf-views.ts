/** The DRF views the service answers as: their names (browsable page title, OPTIONS) and Allow headers. */

/** What DRF says about a view. */
export interface View {
  /** DRF's view name: the browsable page's title and the OPTIONS `name`. */
  name: string;
  /** The Allow header: the methods the route maps, in DRF's order. */
  allow: string;
}

/** `/api/images/`: the viewset's list route maps GET only. */
export const IMAGE_LIST: View = { name: 'Image List', allow: 'GET, HEAD, OPTIONS' };

/** `/api/images/<id>/`: retrieve, update, partial_update and destroy. */
export const IMAGE_INSTANCE: View = { name: 'Image Instance', allow: 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS' };

/** `/api/collections/`: the ModelViewSet's list route maps GET and POST. */
export const COLLECTION_LIST: View = { name: 'Collection List', allow: 'GET, POST, HEAD, OPTIONS' };

/** `/api/collections/<pk>/`: retrieve, update, partial_update and destroy. */
export const COLLECTION_INSTANCE: View = {
  name: 'Collection Instance',
  allow: 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS',
};

/** `/api/collections/<pk>/images/`: the `images` action, GET and POST. */
export const COLLECTION_IMAGES: View = { name: 'Images', allow: 'GET, POST, HEAD, OPTIONS' };

/** DRF's SimpleMetadata answer to OPTIONS for an anonymous client that may not write. */
export function optionsBody(view: View): string {
  return JSON.stringify({
    name: view.name,
    description: '',
    renders: ['application/json', 'text/html'],
    parses: ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'],
  });
}
