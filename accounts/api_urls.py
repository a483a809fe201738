from django.urls import path

from accounts.apis import MeApi, RegisterApi, TokenApi

urlpatterns = [
    path("register/", RegisterApi.as_view(), name="api-register"),
    path("token/", TokenApi.as_view(), name="api-token"),
    path("me/", MeApi.as_view(), name="api-me"),
]
