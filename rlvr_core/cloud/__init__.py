"""Running the pipeline on managed cloud training services (SageMaker), without Prefect."""
