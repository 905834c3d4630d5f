"""Contains all the data models used in inputs/outputs"""

from .algorithm_public import AlgorithmPublic
from .algorithm_search import AlgorithmSearch
from .algorithm_search_grid_type_0 import AlgorithmSearchGridType0
from .algorithm_search_params import AlgorithmSearchParams
from .algorithm_search_random_type_0 import AlgorithmSearchRandomType0
from .attempt import Attempt
from .candidate_score import CandidateScore
from .candidate_score_params import CandidateScoreParams
from .certificate_public import CertificatePublic
from .dataset_create import DatasetCreate
from .dataset_environment import DatasetEnvironment
from .dataset_public import DatasetPublic
from .dataset_public_missing_features import DatasetPublicMissingFeatures
from .dataset_public_text_features import DatasetPublicTextFeatures
from .dataset_reference import DatasetReference
from .dataset_summary import DatasetSummary
from .dataset_upload import DatasetUpload
from .datasets_public import DatasetsPublic
from .device_record import DeviceRecord
from .device_record_chosen_type_0 import DeviceRecordChosenType0
from .device_record_requested import DeviceRecordRequested
from .environment_data import EnvironmentData
from .environment_result import EnvironmentResult
from .environment_result_split import EnvironmentResultSplit
from .erm_evidence import ErmEvidence
from .field_error import FieldError
from .get_job_events_response_200_type_1 import GetJobEventsResponse200Type1
from .get_job_events_response_200_type_2 import GetJobEventsResponse200Type2
from .get_job_events_response_200_type_3 import GetJobEventsResponse200Type3
from .get_job_report_figures import GetJobReportFigures
from .get_job_report_format import GetJobReportFormat
from .get_job_report_response_200 import GetJobReportResponse200
from .get_job_weights_format import GetJobWeightsFormat
from .get_sweep_report_figures import GetSweepReportFigures
from .get_sweep_report_format import GetSweepReportFormat
from .get_sweep_report_response_200 import GetSweepReportResponse200
from .health import Health
from .history_page import HistoryPage
from .homogeneity import Homogeneity
from .input_encoding import InputEncoding
from .input_encoding_missing_features import InputEncodingMissingFeatures
from .input_encoding_text_features import InputEncodingTextFeatures
from .job_create import JobCreate
from .job_create_device import JobCreateDevice
from .job_create_params import JobCreateParams
from .job_create_task_type_0 import JobCreateTaskType0
from .job_error import JobError
from .job_event_data import JobEventData
from .job_event_data_status import JobEventDataStatus
from .job_public import JobPublic
from .job_public_model import JobPublicModel
from .job_public_params import JobPublicParams
from .job_public_status import JobPublicStatus
from .job_public_task import JobPublicTask
from .job_public_validation_type_0 import JobPublicValidationType0
from .job_result import JobResult
from .job_result_coefficients_type_0 import JobResultCoefficientsType0
from .job_result_covariate_weights_type_0 import JobResultCovariateWeightsType0
from .job_summary import JobSummary
from .job_summary_device import JobSummaryDevice
from .job_summary_status import JobSummaryStatus
from .job_summary_task import JobSummaryTask
from .job_update import JobUpdate
from .jobs_comparison import JobsComparison
from .jobs_comparison_coefficients import JobsComparisonCoefficients
from .jobs_comparison_covariate_weights import JobsComparisonCovariateWeights
from .jobs_comparison_environments import JobsComparisonEnvironments
from .jobs_comparison_params import JobsComparisonParams
from .jobs_public import JobsPublic
from .key_create import KeyCreate
from .key_create_scopes_item import KeyCreateScopesItem
from .key_created import KeyCreated
from .key_created_scopes_item import KeyCreatedScopesItem
from .key_created_state import KeyCreatedState
from .key_public import KeyPublic
from .key_public_scopes_item import KeyPublicScopesItem
from .key_public_state import KeyPublicState
from .keys_public import KeysPublic
from .leaderboard import Leaderboard
from .leaderboard_row import LeaderboardRow
from .leaderboard_row_coefficients_type_0 import LeaderboardRowCoefficientsType0
from .leaderboard_row_covariate_weights_type_0 import LeaderboardRowCovariateWeightsType0
from .leaderboard_row_environments import LeaderboardRowEnvironments
from .leaderboard_row_searched_params import LeaderboardRowSearchedParams
from .leaderboard_row_selected_params import LeaderboardRowSelectedParams
from .leaderboard_selection import LeaderboardSelection
from .leaderboard_unselected import LeaderboardUnselected
from .list_jobs_sort import ListJobsSort
from .list_jobs_status_type_0 import ListJobsStatusType0
from .list_keys_state_type_0 import ListKeysStateType0
from .mean_std import MeanStd
from .mlflow_export_public import MlflowExportPublic
from .mlflow_export_request import MlflowExportRequest
from .model_config import ModelConfig
from .model_config_activation_type_0 import ModelConfigActivationType0
from .model_config_kind import ModelConfigKind
from .param_public import ParamPublic
from .predict_request import PredictRequest
from .predict_request_rows_type_0_item import PredictRequestRowsType0Item
from .predict_response import PredictResponse
from .problem import Problem
from .progress import Progress
from .range_ import Range
from .readiness import Readiness
from .reference_comparison import ReferenceComparison
from .reproducibility import Reproducibility
from .reproducibility_model import ReproducibilityModel
from .reproducibility_params import ReproducibilityParams
from .reproducibility_task import ReproducibilityTask
from .reproducibility_validation_type_0 import ReproducibilityValidationType0
from .reproducibility_versions_type_0 import ReproducibilityVersionsType0
from .round_ import Round
from .round_env_losses import RoundEnvLosses
from .round_metrics import RoundMetrics
from .round_metrics_w_type_0 import RoundMetricsWType0
from .seeded_w import SeededW
from .selection import Selection
from .selection_candidate import SelectionCandidate
from .selection_candidate_env_scores import SelectionCandidateEnvScores
from .summary import Summary
from .sweep_create import SweepCreate
from .sweep_create_algorithms import SweepCreateAlgorithms
from .sweep_create_device import SweepCreateDevice
from .sweep_create_selection import SweepCreateSelection
from .sweep_create_task_type_0 import SweepCreateTaskType0
from .sweep_progress import SweepProgress
from .sweep_public import SweepPublic
from .sweep_public_algorithms import SweepPublicAlgorithms
from .sweep_public_algorithms_additional_property_item import SweepPublicAlgorithmsAdditionalPropertyItem
from .sweep_public_selection import SweepPublicSelection
from .sweep_public_status import SweepPublicStatus
from .sweep_public_task import SweepPublicTask
from .sweep_summary import SweepSummary
from .sweep_summary_selection import SweepSummarySelection
from .sweep_summary_status import SweepSummaryStatus
from .sweep_summary_task import SweepSummaryTask
from .sweeps_public import SweepsPublic
from .upload_commit import UploadCommit
from .upload_create import UploadCreate
from .upload_public import UploadPublic
from .validation_result import ValidationResult
from .validation_result_environments_item import ValidationResultEnvironmentsItem
from .validation_spec import ValidationSpec
from .w_evidence import WEvidence
from .weights_json import WeightsJSON
from .weights_json_coefficients_type_0 import WeightsJSONCoefficientsType0
from .weights_json_covariate_weights_type_0 import WeightsJSONCovariateWeightsType0
from .weights_json_model import WeightsJSONModel
from .weights_json_standardizer import WeightsJSONStandardizer
from .weights_json_state import WeightsJSONState
from .weights_json_task import WeightsJSONTask

__all__ = (
    "AlgorithmPublic",
    "AlgorithmSearch",
    "AlgorithmSearchGridType0",
    "AlgorithmSearchParams",
    "AlgorithmSearchRandomType0",
    "Attempt",
    "CandidateScore",
    "CandidateScoreParams",
    "CertificatePublic",
    "DatasetCreate",
    "DatasetEnvironment",
    "DatasetPublic",
    "DatasetPublicMissingFeatures",
    "DatasetPublicTextFeatures",
    "DatasetReference",
    "DatasetsPublic",
    "DatasetSummary",
    "DatasetUpload",
    "DeviceRecord",
    "DeviceRecordChosenType0",
    "DeviceRecordRequested",
    "EnvironmentData",
    "EnvironmentResult",
    "EnvironmentResultSplit",
    "ErmEvidence",
    "FieldError",
    "GetJobEventsResponse200Type1",
    "GetJobEventsResponse200Type2",
    "GetJobEventsResponse200Type3",
    "GetJobReportFigures",
    "GetJobReportFormat",
    "GetJobReportResponse200",
    "GetJobWeightsFormat",
    "GetSweepReportFigures",
    "GetSweepReportFormat",
    "GetSweepReportResponse200",
    "Health",
    "HistoryPage",
    "Homogeneity",
    "InputEncoding",
    "InputEncodingMissingFeatures",
    "InputEncodingTextFeatures",
    "JobCreate",
    "JobCreateDevice",
    "JobCreateParams",
    "JobCreateTaskType0",
    "JobError",
    "JobEventData",
    "JobEventDataStatus",
    "JobPublic",
    "JobPublicModel",
    "JobPublicParams",
    "JobPublicStatus",
    "JobPublicTask",
    "JobPublicValidationType0",
    "JobResult",
    "JobResultCoefficientsType0",
    "JobResultCovariateWeightsType0",
    "JobsComparison",
    "JobsComparisonCoefficients",
    "JobsComparisonCovariateWeights",
    "JobsComparisonEnvironments",
    "JobsComparisonParams",
    "JobsPublic",
    "JobSummary",
    "JobSummaryDevice",
    "JobSummaryStatus",
    "JobSummaryTask",
    "JobUpdate",
    "KeyCreate",
    "KeyCreated",
    "KeyCreatedScopesItem",
    "KeyCreatedState",
    "KeyCreateScopesItem",
    "KeyPublic",
    "KeyPublicScopesItem",
    "KeyPublicState",
    "KeysPublic",
    "Leaderboard",
    "LeaderboardRow",
    "LeaderboardRowCoefficientsType0",
    "LeaderboardRowCovariateWeightsType0",
    "LeaderboardRowEnvironments",
    "LeaderboardRowSearchedParams",
    "LeaderboardRowSelectedParams",
    "LeaderboardSelection",
    "LeaderboardUnselected",
    "ListJobsSort",
    "ListJobsStatusType0",
    "ListKeysStateType0",
    "MeanStd",
    "MlflowExportPublic",
    "MlflowExportRequest",
    "ModelConfig",
    "ModelConfigActivationType0",
    "ModelConfigKind",
    "ParamPublic",
    "PredictRequest",
    "PredictRequestRowsType0Item",
    "PredictResponse",
    "Problem",
    "Progress",
    "Range",
    "Readiness",
    "ReferenceComparison",
    "Reproducibility",
    "ReproducibilityModel",
    "ReproducibilityParams",
    "ReproducibilityTask",
    "ReproducibilityValidationType0",
    "ReproducibilityVersionsType0",
    "Round",
    "RoundEnvLosses",
    "RoundMetrics",
    "RoundMetricsWType0",
    "SeededW",
    "Selection",
    "SelectionCandidate",
    "SelectionCandidateEnvScores",
    "Summary",
    "SweepCreate",
    "SweepCreateAlgorithms",
    "SweepCreateDevice",
    "SweepCreateSelection",
    "SweepCreateTaskType0",
    "SweepProgress",
    "SweepPublic",
    "SweepPublicAlgorithms",
    "SweepPublicAlgorithmsAdditionalPropertyItem",
    "SweepPublicSelection",
    "SweepPublicStatus",
    "SweepPublicTask",
    "SweepsPublic",
    "SweepSummary",
    "SweepSummarySelection",
    "SweepSummaryStatus",
    "SweepSummaryTask",
    "UploadCommit",
    "UploadCreate",
    "UploadPublic",
    "ValidationResult",
    "ValidationResultEnvironmentsItem",
    "ValidationSpec",
    "WeightsJSON",
    "WeightsJSONCoefficientsType0",
    "WeightsJSONCovariateWeightsType0",
    "WeightsJSONModel",
    "WeightsJSONStandardizer",
    "WeightsJSONState",
    "WeightsJSONTask",
    "WEvidence",
)
