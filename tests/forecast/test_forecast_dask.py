import pandas as pd
import pytest
from distributed import Client, LocalCluster

from orrery.forecast import analysis as A
from orrery.forecast.data import load


@pytest.mark.timeout(120)
def test_panel_fit_on_local_cluster_matches_local(panel):
    sd = load(panel, groupby="store", h=6)
    local = A.panel_fit(sd, ["AutoETS", "Naive"], n_windows=2)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        dist = A.panel_fit(sd, ["AutoETS", "Naive"], n_windows=2, client=client)
    assert dist.choice == local.choice
    pd.testing.assert_frame_equal(dist.forecasts, local.forecasts, check_dtype=False, rtol=1e-4)
    scores = ["unique_id", "cutoff", "model"]
    pd.testing.assert_frame_equal(dist.cv.scores.sort_values(scores).reset_index(drop=True),
                                  local.cv.scores.sort_values(scores).reset_index(drop=True),
                                  check_dtype=False, rtol=1e-4)
