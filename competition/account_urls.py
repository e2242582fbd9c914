"""Sign up, log in, log out (mounted at /accounts/)."""

from django.contrib.auth import views as auth_views
from django.urls import path

from competition import views

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
]
