from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.algorithm_search_grid_type_0 import AlgorithmSearchGridType0
    from ..models.algorithm_search_params import AlgorithmSearchParams
    from ..models.algorithm_search_random_type_0 import AlgorithmSearchRandomType0


T = TypeVar("T", bound="AlgorithmSearch")


@_attrs_define
class AlgorithmSearch:
    """How one algorithm's trials are chosen. ``{}``: the default grid from sal_core.

    Attributes:
        grid (AlgorithmSearchGridType0 | None | Unset): Every combination of these values.
        n_trials (int | None | Unset): Points drawn by random search.
        params (AlgorithmSearchParams | Unset): Fixed in every trial (not searched).
        random (AlgorithmSearchRandomType0 | None | Unset): Draw n_trials points: a list is a choice, a range
            (log-)uniform; {} samples the default grid.
    """

    grid: AlgorithmSearchGridType0 | None | Unset = UNSET
    n_trials: int | None | Unset = UNSET
    params: AlgorithmSearchParams | Unset = UNSET
    random: AlgorithmSearchRandomType0 | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.algorithm_search_grid_type_0 import AlgorithmSearchGridType0  # noqa: PLC0415
        from ..models.algorithm_search_random_type_0 import AlgorithmSearchRandomType0  # noqa: PLC0415

        grid: dict[str, Any] | None | Unset
        if isinstance(self.grid, Unset):
            grid = UNSET
        elif isinstance(self.grid, AlgorithmSearchGridType0):
            grid = self.grid.to_dict()
        else:
            grid = self.grid

        n_trials: int | None | Unset
        if isinstance(self.n_trials, Unset):
            n_trials = UNSET
        else:
            n_trials = self.n_trials

        params: dict[str, Any] | Unset = UNSET
        if not isinstance(self.params, Unset):
            params = self.params.to_dict()

        random: dict[str, Any] | None | Unset
        if isinstance(self.random, Unset):
            random = UNSET
        elif isinstance(self.random, AlgorithmSearchRandomType0):
            random = self.random.to_dict()
        else:
            random = self.random

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if grid is not UNSET:
            field_dict["grid"] = grid
        if n_trials is not UNSET:
            field_dict["n_trials"] = n_trials
        if params is not UNSET:
            field_dict["params"] = params
        if random is not UNSET:
            field_dict["random"] = random

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.algorithm_search_grid_type_0 import AlgorithmSearchGridType0  # noqa: PLC0415
        from ..models.algorithm_search_params import AlgorithmSearchParams  # noqa: PLC0415
        from ..models.algorithm_search_random_type_0 import AlgorithmSearchRandomType0  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_grid(data: object) -> AlgorithmSearchGridType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                grid_type_0 = AlgorithmSearchGridType0.from_dict(data)

                return grid_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AlgorithmSearchGridType0 | None | Unset, data)

        grid = _parse_grid(d.pop("grid", UNSET))

        def _parse_n_trials(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        n_trials = _parse_n_trials(d.pop("n_trials", UNSET))

        _params = d.pop("params", UNSET)
        params: AlgorithmSearchParams | Unset
        if isinstance(_params, Unset):
            params = UNSET
        else:
            params = AlgorithmSearchParams.from_dict(_params)

        def _parse_random(data: object) -> AlgorithmSearchRandomType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                random_type_0 = AlgorithmSearchRandomType0.from_dict(data)

                return random_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AlgorithmSearchRandomType0 | None | Unset, data)

        random = _parse_random(d.pop("random", UNSET))

        algorithm_search = cls(
            grid=grid,
            n_trials=n_trials,
            params=params,
            random=random,
        )

        return algorithm_search
