"""A one-sample meta-analysis of the group-level Z maps that img-etl fetched into nilearn's folder.

Run it beside that folder: python meta_analysis.py [data]  (data: the --out of img-etl files --layout nilearn).
It prints the number of maps, the Bonferroni threshold and the clusters above it, and writes the thresholded Z map
to meta_analysis_z.nii.gz.
"""

import sys

import numpy as np
import pandas as pd
from nilearn.datasets import fetch_neurovault_ids, load_mni152_brain_mask
from nilearn.glm import threshold_stats_img
from nilearn.glm.second_level import SecondLevelModel
from nilearn.reporting import get_clusters_table

MIN_MAPS = 21  # 80% power for a peak of Z 2 in each map (docs/recipes/meta-analysis.md)

data_dir = sys.argv[1] if len(sys.argv) > 1 else "data"
files = pd.read_parquet(f"{data_dir}/files.parquet")  # which maps img-etl fetched and verified
ids = [int(i) for i in files.loc[(files["link"] == "file") & (files["status"] == "ok"), "id"]]
# nilearn reads the maps and their metadata from data_dir alone: no request leaves the machine
maps = fetch_neurovault_ids(image_ids=ids, mode="offline", data_dir=data_dir, verbose=0).images
if len(maps) < MIN_MAPS:
    sys.exit(f"{len(maps)} maps: too few for the effect this recipe looks for (at least {MIN_MAPS})")

mask = load_mni152_brain_mask(resolution=2)
design = pd.DataFrame({"intercept": np.ones(len(maps))})  # one-sample test: the mean Z across maps against 0
model = SecondLevelModel(mask_img=mask).fit(maps, design_matrix=design)
z_map = model.compute_contrast("intercept", output_type="z_score")
# Bonferroni over the mask's voxels: alpha 0.05 for the whole brain, two-sided
thresholded, threshold = threshold_stats_img(
    z_map, mask_img=mask, alpha=0.05, height_control="bonferroni", two_sided=True
)
thresholded.to_filename("meta_analysis_z.nii.gz")

voxels = int(mask.get_fdata().sum())
print(f"{len(maps)} maps, {voxels} voxels in the mask: Bonferroni |z| > {threshold:.2f}")
print(get_clusters_table(z_map, stat_threshold=threshold, two_sided=True).to_string(index=False))
