"""nilearn's own NeuroVault code on a folder, run by test/files/nilearn/nilearn-layout.e2e.test.ts with the test venv.

  download BASE DATA_DIR IDS  fetch_neurovault_ids(image_ids=IDS, data_dir=DATA_DIR) against the service at BASE (its
                              URL constants pointed there); prints the ids it returned.
  offline DATA_DIR IDS        with every request made to fail: fetch_neurovault_ids(image_ids=IDS, mode='offline'),
                              fetch_neurovault(max_images=None, mode='offline') with no terms and with nilearn's
                              default terms plus analysis_level "group"; load_img on every map returned; prints the ids.
IDS is a JSON list. Output: one JSON object on stdout.
"""
import json
import sys

import requests
from nilearn.datasets import neurovault as nv
from nilearn.image import load_img


def point_at(base):
    nv._NEUROVAULT_BASE_URL = f"{base}/api/"
    nv._NEUROVAULT_COLLECTIONS_URL = f"{base}/api/collections/"
    nv._NEUROVAULT_IMAGES_URL = f"{base}/api/images/"


def ids_of(result):
    return sorted(meta["id"] for meta in result.images_meta)


def download(base, data_dir, ids):
    point_at(base)
    result = nv.fetch_neurovault_ids(image_ids=ids, data_dir=data_dir, verbose=0)
    return {"ids": ids_of(result)}


def no_network(*args, **kwargs):
    raise AssertionError(f"a request in offline mode: {args} {kwargs}")


def offline(data_dir, ids):
    point_at("http://127.0.0.1:9")  # the discard port: nothing listens, should a request get past the patch
    requests.Session.send = no_network
    requests.adapters.HTTPAdapter.send = no_network
    by_ids = nv.fetch_neurovault_ids(image_ids=ids, data_dir=data_dir, mode="offline", verbose=0)
    every = nv.fetch_neurovault(
        max_images=None, mode="offline", data_dir=data_dir, image_terms={}, collection_terms={}, verbose=0
    )
    group = nv.fetch_neurovault(
        max_images=None,
        mode="offline",
        data_dir=data_dir,
        image_terms={**nv.basic_image_terms(), "analysis_level": "group"},
        collection_terms=nv.basic_collection_terms(),
        verbose=0,
    )
    shapes = [len(load_img(path).shape) for path in by_ids.images]
    return {"by_ids": ids_of(by_ids), "every": ids_of(every), "group": ids_of(group), "loaded": len(shapes)}


if __name__ == "__main__":
    if sys.argv[1] == "download":
        out = download(sys.argv[2], sys.argv[3], json.loads(sys.argv[4]))
    else:
        out = offline(sys.argv[2], json.loads(sys.argv[3]))
    print(json.dumps(out))
