"""Contains all the data models used in inputs/outputs"""

from .algorithm_public import AlgorithmPublic
from .certificate_public import CertificatePublic
from .dataset_create import DatasetCreate
from .dataset_environment import DatasetEnvironment
from .dataset_public import DatasetPublic
from .dataset_upload import DatasetUpload
from .datasets_public import DatasetsPublic
from .environment_data import EnvironmentData
from .environment_result import EnvironmentResult
from .environment_result_split import EnvironmentResultSplit
from .field_error import FieldError
from .get_job_weights_format import GetJobWeightsFormat
from .health import Health
from .job_create import JobCreate
from .job_create_device import JobCreateDevice
from .job_create_params import JobCreateParams
from .job_create_task import JobCreateTask
from .job_error import JobError
from .job_public import JobPublic
from .job_public_device import JobPublicDevice
from .job_public_model import JobPublicModel
from .job_public_params import JobPublicParams
from .job_public_status import JobPublicStatus
from .job_public_task import JobPublicTask
from .job_result_public import JobResultPublic
from .job_result_public_coefficients_type_0 import JobResultPublicCoefficientsType0
from .job_result_public_covariate_weights_type_0 import JobResultPublicCovariateWeightsType0
from .job_result_public_history_item import JobResultPublicHistoryItem
from .jobs_public import JobsPublic
from .list_jobs_status_type_0 import ListJobsStatusType0
from .model_config import ModelConfig
from .model_config_activation_type_0 import ModelConfigActivationType0
from .model_config_kind import ModelConfigKind
from .param_public import ParamPublic
from .predict_request import PredictRequest
from .predict_request_rows_type_0_item import PredictRequestRowsType0Item
from .predict_response import PredictResponse
from .problem import Problem
from .progress import Progress
from .readiness import Readiness
from .summary import Summary
from .weights_json import WeightsJSON
from .weights_json_coefficients_type_0 import WeightsJSONCoefficientsType0
from .weights_json_covariate_weights_type_0 import WeightsJSONCovariateWeightsType0
from .weights_json_model import WeightsJSONModel
from .weights_json_standardizer import WeightsJSONStandardizer
from .weights_json_state import WeightsJSONState
from .weights_json_task import WeightsJSONTask

__all__ = (
    "AlgorithmPublic",
    "CertificatePublic",
    "DatasetCreate",
    "DatasetEnvironment",
    "DatasetPublic",
    "DatasetsPublic",
    "DatasetUpload",
    "EnvironmentData",
    "EnvironmentResult",
    "EnvironmentResultSplit",
    "FieldError",
    "GetJobWeightsFormat",
    "Health",
    "JobCreate",
    "JobCreateDevice",
    "JobCreateParams",
    "JobCreateTask",
    "JobError",
    "JobPublic",
    "JobPublicDevice",
    "JobPublicModel",
    "JobPublicParams",
    "JobPublicStatus",
    "JobPublicTask",
    "JobResultPublic",
    "JobResultPublicCoefficientsType0",
    "JobResultPublicCovariateWeightsType0",
    "JobResultPublicHistoryItem",
    "JobsPublic",
    "ListJobsStatusType0",
    "ModelConfig",
    "ModelConfigActivationType0",
    "ModelConfigKind",
    "ParamPublic",
    "PredictRequest",
    "PredictRequestRowsType0Item",
    "PredictResponse",
    "Problem",
    "Progress",
    "Readiness",
    "Summary",
    "WeightsJSON",
    "WeightsJSONCoefficientsType0",
    "WeightsJSONCovariateWeightsType0",
    "WeightsJSONModel",
    "WeightsJSONStandardizer",
    "WeightsJSONState",
    "WeightsJSONTask",
)
